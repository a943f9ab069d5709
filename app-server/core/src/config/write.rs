//! Writing the user's `config.toml` for a client: edits applied in place with `toml_edit`
//! (comments, order and spacing of everything else stay as they were), checked by loading the
//! result before anything is written, and a compare-and-swap on the file so that a concurrent
//! writer's change is never lost.
//!
//! A write reads the file, applies the edits, writes the result to a temporary file in the
//! same directory and syncs it, then takes an exclusive `flock` on `.config.toml.lock` (shared
//! by every writer of the home, in this process or another), checks that the file still holds
//! what was read and renames the temporary file over it. The lock covers only that read and the
//! rename, never a sync. When another writer got in between, the edits are applied again to its
//! file — or, when the client named the version it expects, the write fails as a conflict.
//!
//! Which keys a client may write is not decided here: the engine checks the edits against the
//! operator's policy (`crate::access::ClientPolicy::check_persistent_config`) first.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use app_server_protocol::config_requests::{ConfigEdit, MergeStrategy};
use toml_edit::{DocumentMut, InlineTable, Item, Table, Value};

use crate::config::{Config, table_version};

/// How many times a write without `expectedVersion` is applied again to a file another
/// writer changed in the meantime before it gives up as a conflict: each round lets at least
/// one of the writers racing for the file through, so this many writers may start at once
/// and all succeed.
const ATTEMPTS: usize = 64;

/// Why a config write did not happen. [`ConfigWriteError::code`] is the reference's
/// `config_write_error_code` for the error's `data`.
#[derive(Debug, thiserror::Error)]
pub enum ConfigWriteError {
    /// The operator has not enabled config writes for this front end.
    #[error(
        "config writes are off for clients of this server (the operator enables them with `clients.allow_config_writes = true`)"
    )]
    Disabled,
    /// `filePath` names a file other than the user's `config.toml`.
    #[error("only writes to the user config ({}) are allowed", .0.display())]
    LayerReadonly(PathBuf),
    /// The operator's policy forbids a client to write one of the keys.
    #[error("{0}")]
    Refused(String),
    /// The file is not at the version the client expected (or kept changing under us).
    #[error("configuration was modified since last read; fetch the latest version and retry")]
    VersionConflict,
    /// A key path is malformed, a value cannot be stored, or the result is not a valid
    /// configuration.
    #[error("invalid configuration: {0}")]
    Validation(String),
    /// `modelProvider/config/write` names a provider that is not configured.
    #[error("unknown provider id `{0}`")]
    UnknownProvider(String),
    /// The file could not be read or written.
    #[error("{0}")]
    Io(String),
}

impl ConfigWriteError {
    /// The reference's error code for the error's `data`, or our own where the reference has
    /// no such error; `None` for I/O failures, which are internal errors.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            ConfigWriteError::Disabled | ConfigWriteError::Refused(_) => Some("configKeyRefused"),
            ConfigWriteError::LayerReadonly(_) => Some("configLayerReadonly"),
            ConfigWriteError::VersionConflict => Some("configVersionConflict"),
            ConfigWriteError::Validation(_) => Some("configValidationError"),
            ConfigWriteError::UnknownProvider(_) => Some("configPathNotFound"),
            ConfigWriteError::Io(_) => None,
        }
    }
}

/// A write that happened.
#[derive(Debug)]
pub struct Written {
    /// The configuration loaded from the written file (with the same `-c` flags).
    pub config: Config,
    /// The file.
    pub file: PathBuf,
}

/// The key path of an edit split at its dots, every segment non-empty.
pub fn split_key_path(key_path: &str) -> Result<Vec<String>, ConfigWriteError> {
    if key_path.is_empty() {
        return Err(ConfigWriteError::Validation(
            "keyPath must not be empty".to_owned(),
        ));
    }
    let segments: Vec<String> = key_path.split('.').map(str::to_owned).collect();
    if segments.iter().any(String::is_empty) {
        return Err(ConfigWriteError::Validation(
            "keyPath segments must not be empty".to_owned(),
        ));
    }
    Ok(segments)
}

/// Applies `edits` to the `config.toml` of `current.home` and answers with the configuration
/// it now describes. Blocking: run it on the blocking pool.
pub fn write_user_config(
    current: &Config,
    edits: &[ConfigEdit],
    expected_version: Option<&str>,
) -> Result<Written, ConfigWriteError> {
    let home = current.home.clone();
    let path = home.join("config.toml");
    std::fs::create_dir_all(&home).map_err(|error| {
        ConfigWriteError::Io(format!("cannot create {}: {error}", home.display()))
    })?;
    for _ in 0..ATTEMPTS {
        let before = read_optional(&path)?;
        let table: toml::Table = match &before {
            Some(text) => toml::from_str(text).map_err(|error| {
                ConfigWriteError::Validation(format!("{} does not parse: {error}", path.display()))
            })?,
            None => toml::Table::new(),
        };
        if let Some(expected) = expected_version
            && expected != table_version(&table)
        {
            return Err(ConfigWriteError::VersionConflict);
        }
        let after = apply_edits(before.as_deref().unwrap_or_default(), edits)?;
        let config = Config::from_user_text(home.clone(), Some(&after), &current.flags)
            .map_err(|error| ConfigWriteError::Validation(error.to_string()))?;
        if before.as_deref() == Some(after.as_str()) {
            return Ok(Written { config, file: path });
        }
        let temporary = write_temporary(&home, &path, &after)?;
        let swapped = swap_if_unchanged(&home, &path, &temporary, before.as_deref());
        match swapped {
            Ok(true) => {
                sync_directory(&home);
                return Ok(Written { config, file: path });
            }
            Ok(false) => {
                let _ = std::fs::remove_file(&temporary);
                if expected_version.is_some() {
                    return Err(ConfigWriteError::VersionConflict);
                }
            }
            Err(error) => {
                let _ = std::fs::remove_file(&temporary);
                return Err(error);
            }
        }
    }
    Err(ConfigWriteError::VersionConflict)
}

/// `text` with `edits` applied in order, everything else kept as it was.
pub fn apply_edits(text: &str, edits: &[ConfigEdit]) -> Result<String, ConfigWriteError> {
    let mut document: DocumentMut = text.parse().map_err(|error| {
        ConfigWriteError::Validation(format!("config.toml does not parse: {error}"))
    })?;
    for edit in edits {
        let path = split_key_path(&edit.key_path)?;
        apply_at(
            document.as_item_mut(),
            &path,
            &edit.value,
            edit.merge_strategy,
        )
        .map_err(|reason| ConfigWriteError::Validation(format!("{}: {reason}", edit.key_path)))?;
    }
    let mut text = document.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Sets `path` below the table `item` to `value`, creating the tables on the way.
fn apply_at(
    item: &mut Item,
    path: &[String],
    value: &serde_json::Value,
    strategy: MergeStrategy,
) -> Result<(), String> {
    let Some((first, rest)) = path.split_first() else {
        return Err("empty key path".to_owned());
    };
    if rest.is_empty() {
        return set_key(item, first, value, strategy);
    }
    let inline = item.is_inline_table();
    let Some(table) = item.as_table_like_mut() else {
        return Err("a parent of the key is not a table".to_owned());
    };
    if table.get(first).is_none() {
        if value.is_null() {
            // Removing a key of a table that does not exist: nothing to do.
            return Ok(());
        }
        let created = if inline {
            Item::Value(Value::InlineTable(InlineTable::new()))
        } else {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        };
        table.insert(first, created);
    }
    let Some(child) = table.get_mut(first) else {
        return Err(format!("cannot create the table `{first}`"));
    };
    if !child.is_table_like() {
        return Err(format!("`{first}` is not a table"));
    }
    apply_at(child, rest, value, strategy)
}

/// Sets `key` of the table `item` to `value` (`null` removes it).
fn set_key(
    item: &mut Item,
    key: &str,
    value: &serde_json::Value,
    strategy: MergeStrategy,
) -> Result<(), String> {
    if value.is_null() {
        if let Some(table) = item.as_table_mut() {
            remove_keeping_comments(table, key);
        } else if let Some(table) = item.as_table_like_mut() {
            table.remove(key);
        } else {
            return Err("a parent of the key is not a table".to_owned());
        }
        return Ok(());
    }
    let inline = item.is_inline_table();
    let Some(table) = item.as_table_like_mut() else {
        return Err("a parent of the key is not a table".to_owned());
    };
    if let (MergeStrategy::Upsert, serde_json::Value::Object(object)) = (strategy, value)
        && let Some(existing) = table.get_mut(key)
        && existing.is_table_like()
    {
        for (inner_key, inner_value) in object {
            set_key(
                existing,
                inner_key.as_str(),
                inner_value,
                MergeStrategy::Upsert,
            )?;
        }
        return Ok(());
    }
    let new_item = json_to_item(value, inline)?;
    match table.get_mut(key) {
        Some(Item::Value(existing)) if new_item.is_value() => {
            // Keep the comment and spacing around the old value.
            let decor = existing.decor().clone();
            if let Item::Value(mut replacement) = new_item {
                *replacement.decor_mut() = decor;
                *existing = replacement;
            }
        }
        _ => {
            table.insert(key, new_item);
        }
    }
    Ok(())
}

/// Removes `key` of `table`; the comment lines above it move to the item that follows.
fn remove_keeping_comments(table: &mut Table, key: &str) {
    let prefix = table
        .key(key)
        .and_then(|found| found.leaf_decor().prefix())
        .and_then(|prefix| prefix.as_str())
        .unwrap_or("")
        .to_string();
    let Some(position) = table.iter().position(|(name, _)| name == key) else {
        return;
    };
    table.remove(key);
    if !prefix.contains('#') {
        return;
    }
    let Some(next) = table.iter().nth(position).map(|(name, _)| name.to_string()) else {
        return;
    };
    if table.get(&next).is_some_and(Item::is_table) {
        if let Some(sub_table) = table.get_mut(&next).and_then(Item::as_table_mut) {
            prepend_to_table(sub_table, &prefix);
        }
    } else if let Some(mut next_key) = table.key_mut(&next) {
        let existing = next_key
            .leaf_decor()
            .prefix()
            .and_then(|raw| raw.as_str())
            .unwrap_or("")
            .to_string();
        next_key
            .leaf_decor_mut()
            .set_prefix(format!("{prefix}{existing}"));
    }
}

/// Puts comment lines before a table's header; an implicit table (`[a.b]` alone implies
/// `[a]`) has no header of its own, so they go to its first sub-table's.
fn prepend_to_table(table: &mut Table, prefix: &str) {
    if table.is_implicit() {
        let first = table
            .iter()
            .find(|(_, item)| item.is_table())
            .map(|(name, _)| name.to_string());
        if let Some(child) = first.and_then(|name| table.get_mut(&name)?.as_table_mut()) {
            prepend_to_table(child, prefix);
            return;
        }
    }
    let existing = table
        .decor()
        .prefix()
        .and_then(|raw| raw.as_str())
        .unwrap_or("")
        .to_string();
    table.decor_mut().set_prefix(format!("{prefix}{existing}"));
}

/// A JSON value as a TOML item: objects become tables (inline ones inside an inline table).
fn json_to_item(value: &serde_json::Value, inline: bool) -> Result<Item, String> {
    match value {
        serde_json::Value::Object(object) if !inline => {
            let mut table = Table::new();
            for (key, inner) in object {
                if inner.is_null() {
                    continue;
                }
                table.insert(key, json_to_item(inner, false)?);
            }
            Ok(Item::Table(table))
        }
        other => Ok(Item::Value(json_to_value(other)?)),
    }
}

/// A JSON value as a TOML value; `null` has no TOML form.
fn json_to_value(value: &serde_json::Value) -> Result<Value, String> {
    Ok(match value {
        serde_json::Value::Null => return Err("null cannot be stored inside a value".to_owned()),
        serde_json::Value::Bool(boolean) => Value::from(*boolean),
        serde_json::Value::Number(number) => match number.as_i64() {
            Some(integer) => Value::from(integer),
            None => match number.as_f64() {
                Some(float) => Value::from(float),
                None => return Err(format!("{number} is not a TOML number")),
            },
        },
        serde_json::Value::String(string) => Value::from(string.as_str()),
        serde_json::Value::Array(array) => {
            let mut out = toml_edit::Array::new();
            for inner in array {
                out.push(json_to_value(inner)?);
            }
            Value::Array(out)
        }
        serde_json::Value::Object(object) => {
            let mut out = InlineTable::new();
            for (key, inner) in object {
                if inner.is_null() {
                    continue;
                }
                out.insert(key, json_to_value(inner)?);
            }
            Value::InlineTable(out)
        }
    })
}

/// The file's text, `None` when it does not exist.
fn read_optional(path: &Path) -> Result<Option<String>, ConfigWriteError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(ConfigWriteError::Io(format!(
            "cannot read {}: {error}",
            path.display()
        ))),
    }
}

/// Writes `text` to a new file beside `path`, with `path`'s permissions (0600 when it does
/// not exist yet), and syncs it.
fn write_temporary(home: &Path, path: &Path, text: &str) -> Result<PathBuf, ConfigWriteError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let temporary = home.join(format!(
        ".config.toml.{}.tmp",
        uuid::Uuid::now_v7().simple()
    ));
    let failed = |error: std::io::Error| {
        let _ = std::fs::remove_file(&temporary);
        ConfigWriteError::Io(format!("cannot write {}: {error}", temporary.display()))
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .map_err(|error| {
            ConfigWriteError::Io(format!("cannot write {}: {error}", temporary.display()))
        })?;
    if let Ok(metadata) = std::fs::metadata(path) {
        file.set_permissions(metadata.permissions())
            .map_err(failed)?;
    }
    file.write_all(text.as_bytes()).map_err(failed)?;
    file.sync_all().map_err(failed)?;
    Ok(temporary)
}

/// Renames `temporary` over `path` if `path` still holds `before`, under the home's write
/// lock; `false` when another writer changed it.
fn swap_if_unchanged(
    home: &Path,
    path: &Path,
    temporary: &Path,
    before: Option<&str>,
) -> Result<bool, ConfigWriteError> {
    let _lock = WriteLock::acquire(home)?;
    if read_optional(path)?.as_deref() != before {
        return Ok(false);
    }
    std::fs::rename(temporary, path).map_err(|error| {
        ConfigWriteError::Io(format!("cannot replace {}: {error}", path.display()))
    })?;
    Ok(true)
}

/// Makes the rename durable; a failure only costs durability, so it is logged.
fn sync_directory(home: &Path) {
    if let Err(error) = std::fs::File::open(home).and_then(|directory| directory.sync_all()) {
        tracing::warn!("cannot sync {}: {error}", home.display());
    }
}

/// An exclusive `flock` on `$TANDEM_HOME/.config.toml.lock`, released on drop.
struct WriteLock {
    _lock: crate::sync::FileLock,
}

impl WriteLock {
    fn acquire(home: &Path) -> Result<WriteLock, ConfigWriteError> {
        let path = home.join(".config.toml.lock");
        match crate::sync::FileLock::exclusive(&path) {
            Ok(lock) => Ok(WriteLock { _lock: lock }),
            Err(error) => Err(ConfigWriteError::Io(format!(
                "cannot lock {}: {error}",
                path.display()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn edit(key_path: &str, value: serde_json::Value, merge_strategy: MergeStrategy) -> ConfigEdit {
        ConfigEdit {
            key_path: key_path.to_owned(),
            value,
            merge_strategy,
        }
    }

    #[test]
    fn edits_keep_comments_order_and_the_comment_of_a_replaced_value() {
        let text = "# mine\nmodel = \"old\"  # usual\napproval_policy = \"never\"\n\n[sandbox_workspace_write]\n# roots\nwritable_roots = []\n";
        let edited = apply_edits(
            text,
            &[
                edit("model", json!("new"), MergeStrategy::Replace),
                edit(
                    "sandbox_workspace_write",
                    json!({"exclude_slash_tmp": true}),
                    MergeStrategy::Upsert,
                ),
                edit(
                    "model_reasoning_effort",
                    json!("high"),
                    MergeStrategy::Replace,
                ),
            ],
        )
        .unwrap();
        assert_eq!(
            edited,
            "# mine\nmodel = \"new\"  # usual\napproval_policy = \"never\"\nmodel_reasoning_effort = \"high\"\n\n[sandbox_workspace_write]\n# roots\nwritable_roots = []\nexclude_slash_tmp = true\n"
        );
    }

    #[test]
    fn a_removed_key_leaves_its_comment_lines_to_what_follows() {
        let original = "# my settings\nmodel = \"old\"   # the usual one\n\n[profiles.fast]\n# fast profile\nmodel = \"small\"\n";
        let written = apply_edits(
            original,
            &[
                edit("model", json!("new-model"), MergeStrategy::Replace),
                edit(
                    "model_reasoning_effort",
                    json!("high"),
                    MergeStrategy::Replace,
                ),
            ],
        )
        .unwrap();
        assert_eq!(
            written,
            "# my settings\nmodel = \"new-model\"   # the usual one\nmodel_reasoning_effort = \"high\"\n\n[profiles.fast]\n# fast profile\nmodel = \"small\"\n"
        );
        let cleared = apply_edits(
            &written,
            &[
                edit("model", json!(null), MergeStrategy::Replace),
                edit(
                    "model_reasoning_effort",
                    json!(null),
                    MergeStrategy::Replace,
                ),
            ],
        )
        .unwrap();
        assert_eq!(
            cleared,
            "# my settings\n\n[profiles.fast]\n# fast profile\nmodel = \"small\"\n"
        );
    }

    #[test]
    fn replace_drops_the_keys_a_table_value_leaves_out_and_null_removes() {
        let text = "[tools]\na = 1\nb = 2\n";
        let replaced = apply_edits(
            text,
            &[edit("tools", json!({"c": 3}), MergeStrategy::Replace)],
        )
        .unwrap();
        assert_eq!(replaced, "[tools]\nc = 3\n");
        let removed = apply_edits(
            text,
            &[edit("tools.a", json!(null), MergeStrategy::Replace)],
        )
        .unwrap();
        assert_eq!(removed, "[tools]\nb = 2\n");
    }

    #[test]
    fn malformed_key_paths_and_values_are_validation_errors() {
        for (key_path, value) in [
            ("", json!(1)),
            ("a..b", json!(1)),
            ("model.inner", json!(1)),
            ("list", json!([1, null])),
        ] {
            let text = "model = \"m\"\n";
            let result = apply_edits(text, &[edit(key_path, value, MergeStrategy::Replace)]);
            assert!(
                matches!(result, Err(ConfigWriteError::Validation(_))),
                "{key_path}: {result:?}"
            );
        }
    }
}
