//! Config layers as TOML tables that remember where each key was set.
//!
//! A [`Tracked`] table maps each dotted key to its [`Source`]: the origin reported by
//! `config/read` and a location (`file:line`, ``-c `k=v` ``) for error messages.
//! Layers are deep-merged: tables merge key by key, any other value replaces what was below.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use toml::de::{DeTable, DeValue};

use crate::config::{Config, ConfigError, ConfigOrigin};

/// Where a value was set.
#[derive(Clone, Debug)]
pub(super) struct Source {
    /// The layer kind reported by `config/read`.
    origin: ConfigOrigin,
    /// `/path/config.toml:12`, ``-c `model=x` `` or `config override`.
    location: String,
    /// The dotted key as written in its layer (`profiles.fast.model`).
    key: String,
}

/// A TOML table plus the source of its keys.
#[derive(Clone, Debug, Default)]
pub(super) struct Tracked {
    /// The values.
    pub(super) table: toml::Table,
    /// Dotted key → source, for every leaf and for tables whose position is known.
    sources: BTreeMap<String, Source>,
}

impl Tracked {
    /// Parses the user config file, recording the line of every key.
    pub(super) fn parse_file(path: &Path, text: &str) -> Result<Tracked, ConfigError> {
        let document = DeTable::parse(text).map_err(|err| syntax_error(path, text, &err))?;
        let mut sources = BTreeMap::new();
        record_file_sources(document.get_ref(), "", path, text, &mut sources);
        let table = toml::Table::deserialize(toml::de::Deserializer::from(document))
            .map_err(|err| syntax_error(path, text, &err))?;
        Ok(Tracked { table, sources })
    }

    /// Parses `-c key=value` flags; later flags override earlier ones.
    ///
    /// The value is TOML; when it does not parse, it is taken as a plain string (with
    /// surrounding quotes removed), as Codex does.
    pub(super) fn parse_flags(flags: &[String]) -> Result<Tracked, ConfigError> {
        let mut tracked = Tracked::default();
        for flag in flags {
            let Some((key, raw_value)) = flag.split_once('=') else {
                return Err(ConfigError::InvalidFlag {
                    flag: flag.clone(),
                    reason: "expected `key=value`".to_owned(),
                });
            };
            let Some(path) = split_dotted(key) else {
                return Err(ConfigError::InvalidFlag {
                    flag: flag.clone(),
                    reason: "empty key".to_owned(),
                });
            };
            let location = format!("-c `{flag}`");
            tracked.set(
                &path,
                parse_flag_value(raw_value),
                ConfigOrigin::SessionFlags,
                &location,
            );
        }
        Ok(tracked)
    }

    /// Converts per-thread overrides (dotted key → JSON) into a layer; `null`s are skipped.
    pub(super) fn from_json(
        overrides: &BTreeMap<String, serde_json::Value>,
    ) -> Result<Tracked, ConfigError> {
        let mut tracked = Tracked::default();
        for (key, value) in overrides {
            let Some(path) = split_dotted(key) else {
                return Err(ConfigError::InvalidOverride {
                    key: key.clone(),
                    reason: "empty key".to_owned(),
                });
            };
            if let Some(value) = json_to_toml(value) {
                tracked.set(&path, value, ConfigOrigin::SessionFlags, "config override");
            }
        }
        Ok(tracked)
    }

    /// Rebuilds the merged layers of a loaded config; lines are no longer known.
    pub(super) fn from_config(config: &Config) -> Tracked {
        let sources = config
            .origins
            .iter()
            .map(|(key, origin)| {
                let location = match origin {
                    ConfigOrigin::User => config.config_file.display().to_string(),
                    ConfigOrigin::SessionFlags => "session flags".to_owned(),
                };
                let source = Source {
                    origin: origin.clone(),
                    location,
                    key: key.clone(),
                };
                (key.clone(), source)
            })
            .collect();
        Tracked {
            table: config.effective.clone(),
            sources,
        }
    }

    /// Deep-merges `over` on top of this layer.
    pub(super) fn merge(&mut self, over: Tracked) {
        merge_tables(&mut self.table, over.table, "", &mut self.sources);
        self.sources.extend(over.sources);
    }

    /// Every dotted key this layer has a source for.
    pub(super) fn source_keys(&self) -> Vec<String> {
        self.sources.keys().cloned().collect()
    }

    /// The origin of every leaf that some layer set (defaults have none).
    pub(super) fn origins(&self) -> BTreeMap<String, ConfigOrigin> {
        let mut origins = BTreeMap::new();
        for_each_leaf(&self.table, "", &mut |key| {
            if let Some(source) = self.sources.get(key) {
                origins.insert(key.to_owned(), source.origin.clone());
            }
        });
        origins
    }

    /// Where `dotted` (or, for a table without a known position, its first key) was set.
    pub(super) fn location(&self, dotted: &str) -> String {
        match self.source(dotted) {
            Some(source) => source.location.clone(),
            None => "config".to_owned(),
        }
    }

    /// `dotted` as written in its layer, such as `profiles.fast.model` for `model`.
    pub(super) fn written_key(&self, dotted: &str) -> String {
        match self.sources.get(dotted) {
            Some(source) => source.key.clone(),
            None => dotted.to_owned(),
        }
    }

    /// The error for a bad value at `dotted`.
    pub(super) fn invalid_value(&self, dotted: &str, message: &str) -> ConfigError {
        ConfigError::InvalidValue {
            location: self.location(dotted),
            key: self.written_key(dotted),
            message: message.to_owned(),
        }
    }

    /// Deserializes the value at `dotted`.
    pub(super) fn typed<T: DeserializeOwned>(
        &self,
        dotted: &str,
        value: &toml::Value,
    ) -> Result<T, ConfigError> {
        T::deserialize(value.clone()).map_err(|err| self.invalid_value(dotted, err.message()))
    }

    /// Deserializes `table[key]`, where `table` sits at dotted path `prefix`.
    pub(super) fn field<T: DeserializeOwned>(
        &self,
        table: &toml::Table,
        prefix: &str,
        key: &str,
    ) -> Result<Option<T>, ConfigError> {
        match table.get(key) {
            Some(value) => self.typed(&join(prefix, key), value).map(Some),
            None => Ok(None),
        }
    }

    /// Sets `path` to `value` in this layer, creating (or replacing non-tables by) tables.
    fn set(&mut self, path: &[String], value: toml::Value, origin: ConfigOrigin, location: &str) {
        let dotted = path.join(".");
        remove_sources_within(&mut self.sources, &dotted);
        let mut record = |key: &str| {
            let source = Source {
                origin: origin.clone(),
                location: location.to_owned(),
                key: key.to_owned(),
            };
            self.sources.insert(key.to_owned(), source);
        };
        record(&dotted);
        if let toml::Value::Table(table) = &value {
            for_each_leaf(table, &dotted, &mut record);
        }
        insert_at(&mut self.table, path, value);
    }

    /// The source of `dotted`, else of the first key below it.
    fn source(&self, dotted: &str) -> Option<&Source> {
        if let Some(source) = self.sources.get(dotted) {
            return Some(source);
        }
        let prefix = format!("{dotted}.");
        self.sources
            .range(prefix.clone()..)
            .next()
            .filter(|(key, _)| key.starts_with(&prefix))
            .map(|(_, source)| source)
    }
}

/// The profile named by `profile` in `merged`, as a layer keyed like the top level.
///
/// Returns `None` when no profile is selected.
pub(super) fn active_profile(merged: &Tracked) -> Result<Option<(String, Tracked)>, ConfigError> {
    let Some(value) = merged.table.get("profile") else {
        return Ok(None);
    };
    let name: String = merged.typed("profile", value)?;
    let profile = merged
        .table
        .get("profiles")
        .and_then(toml::Value::as_table)
        .and_then(|profiles| profiles.get(&name));
    let Some(profile) = profile else {
        return Err(ConfigError::ProfileNotFound {
            location: merged.location("profile"),
            name,
        });
    };
    let prefix = join("profiles", &name);
    let table: toml::Table = merged.typed(&prefix, profile)?;
    let sources = merged
        .sources
        .iter()
        .filter_map(|(key, source)| {
            let rest = key.strip_prefix(&prefix)?.strip_prefix('.')?;
            Some((rest.to_owned(), source.clone()))
        })
        .collect();
    Ok(Some((name, Tracked { table, sources })))
}

/// `inner` is `outer` or a key below it.
pub(super) fn is_within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// `prefix.key`, or `key` at the top level.
pub(super) fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// A copy of `table` with only the leaves whose dotted key satisfies `keep`.
pub(super) fn filter_leaves(table: &toml::Table, keep: impl Fn(&str) -> bool) -> toml::Table {
    fn filter(table: &toml::Table, prefix: &str, keep: &dyn Fn(&str) -> bool) -> toml::Table {
        let mut kept = toml::Table::new();
        for (key, value) in table {
            let dotted = join(prefix, key);
            match value {
                toml::Value::Table(inner) => {
                    let inner = filter(inner, &dotted, keep);
                    if !inner.is_empty() {
                        kept.insert(key.clone(), toml::Value::Table(inner));
                    }
                }
                value if keep(&dotted) => {
                    kept.insert(key.clone(), value.clone());
                }
                _ => {}
            }
        }
        kept
    }
    filter(table, "", &keep)
}

/// Converts a TOML table to JSON; datetimes become strings, non-finite floats `null`.
pub(super) fn toml_table_to_json(
    table: &toml::Table,
) -> serde_json::Map<String, serde_json::Value> {
    table
        .iter()
        .map(|(key, value)| (key.clone(), toml_to_json(value)))
        .collect()
}

fn toml_to_json(value: &toml::Value) -> serde_json::Value {
    match value {
        toml::Value::String(string) => serde_json::Value::String(string.clone()),
        toml::Value::Integer(integer) => serde_json::Value::from(*integer),
        toml::Value::Float(float) => serde_json::Number::from_f64(*float)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        toml::Value::Boolean(boolean) => serde_json::Value::Bool(*boolean),
        toml::Value::Datetime(datetime) => serde_json::Value::String(datetime.to_string()),
        toml::Value::Array(array) => array.iter().map(toml_to_json).collect(),
        toml::Value::Table(table) => serde_json::Value::Object(toml_table_to_json(table)),
    }
}

/// Converts JSON to TOML; `null` (which TOML lacks) becomes `None` and is dropped from
/// arrays and objects.
fn json_to_toml(value: &serde_json::Value) -> Option<toml::Value> {
    Some(match value {
        serde_json::Value::Null => return None,
        serde_json::Value::Bool(boolean) => toml::Value::Boolean(*boolean),
        serde_json::Value::Number(number) => match number.as_i64() {
            Some(integer) => toml::Value::Integer(integer),
            // u64 above i64::MAX and fractions: TOML integers are i64.
            None => toml::Value::Float(number.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(string) => toml::Value::String(string.clone()),
        serde_json::Value::Array(array) => {
            toml::Value::Array(array.iter().filter_map(json_to_toml).collect())
        }
        serde_json::Value::Object(object) => toml::Value::Table(
            object
                .iter()
                .filter_map(|(key, value)| Some((key.clone(), json_to_toml(value)?)))
                .collect(),
        ),
    })
}

/// Splits `a.b.c` into segments; `None` if the key or any segment is empty.
pub(super) fn split_dotted(key: &str) -> Option<Vec<String>> {
    key.trim()
        .split('.')
        .map(|segment| {
            let segment = segment.trim();
            (!segment.is_empty()).then(|| segment.to_owned())
        })
        .collect()
}

/// A `-c` value: TOML if it parses, else the raw text without surrounding quotes.
fn parse_flag_value(raw: &str) -> toml::Value {
    let raw = raw.trim();
    match raw.parse::<toml::Value>() {
        Ok(value) => value,
        Err(_) => toml::Value::String(raw.trim_matches(|c| c == '"' || c == '\'').to_owned()),
    }
}

/// Inserts `value` at `path`, replacing any non-table found on the way by a table.
fn insert_at(table: &mut toml::Table, path: &[String], value: toml::Value) {
    match path {
        [] => {}
        [last] => {
            table.insert(last.clone(), value);
        }
        [first, rest @ ..] => {
            let entry = table
                .entry(first.clone())
                .or_insert(toml::Value::Table(toml::Table::new()));
            if let toml::Value::Table(inner) = entry {
                insert_at(inner, rest, value);
            } else {
                let mut inner = toml::Table::new();
                insert_at(&mut inner, rest, value);
                *entry = toml::Value::Table(inner);
            }
        }
    }
}

fn merge_tables(
    base: &mut toml::Table,
    over: toml::Table,
    prefix: &str,
    sources: &mut BTreeMap<String, Source>,
) {
    for (key, value) in over {
        let dotted = join(prefix, &key);
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(base_inner)), toml::Value::Table(over_inner)) => {
                merge_tables(base_inner, over_inner, &dotted, sources);
            }
            (_, value) => {
                remove_sources_within(sources, &dotted);
                base.insert(key, value);
            }
        }
    }
}

fn remove_sources_within(sources: &mut BTreeMap<String, Source>, dotted: &str) {
    sources.retain(|key, _| !is_within(key, dotted));
}

/// Calls `visit` with the dotted key of every non-table value; arrays are leaves.
fn for_each_leaf(table: &toml::Table, prefix: &str, visit: &mut dyn FnMut(&str)) {
    for (key, value) in table {
        let dotted = join(prefix, key);
        match value {
            toml::Value::Table(inner) => for_each_leaf(inner, &dotted, visit),
            _ => visit(&dotted),
        }
    }
}

/// Records `path:line` for every key (tables included) of a parsed config file.
fn record_file_sources(
    table: &DeTable<'_>,
    prefix: &str,
    path: &Path,
    text: &str,
    sources: &mut BTreeMap<String, Source>,
) {
    for (key, value) in table.iter() {
        let dotted = join(prefix, key.get_ref());
        let (line, _) = line_column(text, value.span().start);
        let source = Source {
            origin: ConfigOrigin::User,
            location: format!("{}:{line}", path.display()),
            key: dotted.clone(),
        };
        sources.insert(dotted.clone(), source);
        if let DeValue::Table(inner) = value.get_ref() {
            record_file_sources(inner, &dotted, path, text, sources);
        }
    }
}

fn syntax_error(path: &Path, text: &str, err: &toml::de::Error) -> ConfigError {
    let offset = err.span().map_or(0, |span| span.start);
    let (line, column) = line_column(text, offset);
    ConfigError::Syntax {
        path: path.to_owned(),
        line,
        column,
        message: err.message().replace('\n', " "),
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = crate::text::floor_char_boundary(text, offset);
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}
