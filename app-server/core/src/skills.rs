//! Skills on disk: finding `SKILL.md` files, reading their front matter, the
//! `[[skills.config]]` settings that enable or disable them, and the message that lists the
//! enabled ones to the model.
//!
//! A skill is a directory holding a `SKILL.md` that starts with a front matter block between
//! `---` lines naming it (`name`) and saying what it is for (`description`, and optionally
//! `metadata.short-description`). Skills come from a repository's `.agents/skills/` and
//! `.codex/skills/` in every directory from the repository root (the nearest ancestor with a
//! `.git` entry, else the cwd itself) down to the cwd (`repo` scope), then from
//! `$TANDEM_HOME/skills/` and the connection's extra roots (`user` scope). Each root is
//! searched recursively, hidden directories and symbolic links to directories left out.
//!
//! Everything here reads files and blocks: call it from a blocking thread. What is read is
//! capped: [`MAX_SKILL_FILE_BYTES`] of each file, [`MAX_DEPTH`] levels below a root,
//! [`MAX_ENTRIES`] directory entries per root and [`MAX_SKILLS`] skills per listing.

use std::collections::HashSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use app_server_protocol::skills::{SkillErrorInfo, SkillMetadata, SkillScope};

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The most of a `SKILL.md` read to find its front matter.
pub const MAX_SKILL_FILE_BYTES: u64 = 64 * 1024;
/// How deep below a root a `SKILL.md` is looked for.
pub const MAX_DEPTH: usize = 6;
/// The most directory entries looked at under one root.
pub const MAX_ENTRIES: usize = 20_000;
/// The most skills one listing holds.
pub const MAX_SKILLS: usize = 500;
/// The longest accepted `name`, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// The longest accepted `description`, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// The skills one working directory sees, and the files that are not valid skills.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Discovery {
    /// Repository skills first, then the user's and the extra roots'; each group in name order.
    pub skills: Vec<SkillMetadata>,
    /// The `SKILL.md` files that could not be read as skills.
    pub errors: Vec<SkillErrorInfo>,
}

impl Discovery {
    /// The enabled skills.
    pub fn enabled(&self) -> impl Iterator<Item = &SkillMetadata> {
        self.skills.iter().filter(|skill| skill.enabled)
    }
}

/// One `[[skills.config]]` entry of `config.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillSetting {
    /// The `SKILL.md` the entry applies to, when it names a path.
    pub path: Option<String>,
    /// The skill name the entry applies to, when it names one.
    pub name: Option<String>,
    /// Whether the skill is enabled.
    pub enabled: bool,
}

/// The `[[skills.config]]` entries of a configuration table, in file order; malformed entries
/// are skipped.
pub fn settings(table: &toml::Table) -> Vec<SkillSetting> {
    let Some(entries) = table
        .get("skills")
        .and_then(|skills| skills.get("config"))
        .and_then(toml::Value::as_array)
    else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let entry = entry.as_table()?;
            let text = |key: &str| entry.get(key).and_then(toml::Value::as_str);
            Some(SkillSetting {
                path: text("path").map(str::to_owned),
                name: text("name").map(str::to_owned),
                enabled: entry.get("enabled")?.as_bool()?,
            })
        })
        .collect()
}

/// Whether a skill is enabled under `settings`: an entry naming its path wins over one naming
/// its name, and among entries of the same kind the last one wins; a skill no entry names is
/// enabled.
pub fn is_enabled(settings: &[SkillSetting], name: &str, path: &str) -> bool {
    let by_path = settings
        .iter()
        .rev()
        .find(|setting| setting.path.as_deref() == Some(path));
    let by_name = settings
        .iter()
        .rev()
        .find(|setting| setting.path.is_none() && setting.name.as_deref() == Some(name));
    by_path.or(by_name).is_none_or(|setting| setting.enabled)
}

/// The user's own skills directory, `$TANDEM_HOME/skills/`. Sandboxed commands may read it
/// (never write it) although the rest of the home is hidden from them, so that the model can
/// read the skills it is told about.
pub fn user_skills_dir(tandem_home: &Path) -> PathBuf {
    tandem_home.join("skills")
}

/// The directories searched for the skills `cwd` sees, in order, existing or not: the
/// repository's `.agents/skills/` and `.codex/skills/` from its root down to `cwd`, then
/// `home/skills` and `extra_roots`.
pub fn roots(home: &Path, cwd: &Path, extra_roots: &[PathBuf]) -> Vec<(PathBuf, SkillScope)> {
    let mut roots: Vec<(PathBuf, SkillScope)> = Vec::new();
    for directory in crate::engine::agents_md::project_directories(cwd) {
        for hidden in [".agents", ".codex"] {
            roots.push((directory.join(hidden).join("skills"), SkillScope::Repo));
        }
    }
    roots.push((user_skills_dir(home), SkillScope::User));
    roots.extend(
        extra_roots
            .iter()
            .map(|root| (root.clone(), SkillScope::User)),
    );
    roots
}

/// Finds the skills `cwd` sees: the repository's, then `home/skills` and `extra_roots`, with
/// `settings` deciding which are enabled.
pub fn discover(
    home: &Path,
    cwd: &Path,
    extra_roots: &[PathBuf],
    settings: &[SkillSetting],
) -> Discovery {
    let roots = roots(home, cwd, extra_roots);

    let mut discovery = Discovery::default();
    let mut seen = HashSet::new();
    for scope in [SkillScope::Repo, SkillScope::User] {
        let mut group = Vec::new();
        for (root, _) in roots.iter().filter(|(_, root_scope)| *root_scope == scope) {
            for file in skill_files(root) {
                let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
                if !seen.insert(canonical) {
                    continue;
                }
                let path = file.to_string_lossy().into_owned();
                match read_skill(&file) {
                    Ok(front) => group.push(SkillMetadata {
                        enabled: is_enabled(settings, &front.name, &path),
                        name: front.name,
                        description: front.description,
                        short_description: front.short_description,
                        path,
                        scope,
                        plugin_id: None,
                    }),
                    Err(message) => discovery.errors.push(SkillErrorInfo { path, message }),
                }
            }
        }
        group.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.path.cmp(&b.path)));
        discovery.skills.extend(group);
    }
    if discovery.skills.len() > MAX_SKILLS {
        tracing::warn!(
            found = discovery.skills.len(),
            "more than {MAX_SKILLS} skills; the rest are not listed"
        );
        discovery.skills.truncate(MAX_SKILLS);
    }
    discovery
}

/// The `SKILL.md` files below `root`, at most [`MAX_DEPTH`] levels down, in path order.
fn skill_files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![(root.to_path_buf(), 0_usize)];
    let mut entries_seen = 0_usize;
    while let Some((directory, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        let mut children = Vec::new();
        for entry in entries.flatten() {
            entries_seen += 1;
            if entries_seen > MAX_ENTRIES {
                tracing::warn!(root = %root.display(), "skill search stopped after {MAX_ENTRIES} entries");
                pending.clear();
                break;
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            // `file_type` does not follow symbolic links: a linked directory is not entered.
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if name == SKILL_FILE && !file_type.is_dir() {
                found.push(entry.path());
            } else if file_type.is_dir() && !name.starts_with('.') && depth < MAX_DEPTH {
                children.push(entry.path());
            }
        }
        pending.extend(children.into_iter().map(|child| (child, depth + 1)));
    }
    found.sort();
    found
}

/// What a `SKILL.md`'s front matter says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontMatter {
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// `metadata.short-description`.
    pub short_description: Option<String>,
}

/// Reads the front matter of the `SKILL.md` at `path` (its first [`MAX_SKILL_FILE_BYTES`]).
fn read_skill(path: &Path) -> Result<FrontMatter, String> {
    let file = std::fs::File::open(path).map_err(|error| error.to_string())?;
    if !file
        .metadata()
        .map_err(|error| error.to_string())?
        .is_file()
    {
        return Err("not a regular file".to_owned());
    }
    let mut bytes = Vec::new();
    file.take(MAX_SKILL_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    let text = String::from_utf8_lossy(&bytes);
    parse_front_matter(&text)
}

/// Parses the front matter block at the start of `text`: the YAML subset skills use
/// (top-level `key: value` scalars, plain or quoted, folded or literal block scalars, and the
/// one nested map `metadata`).
pub fn parse_front_matter(text: &str) -> Result<FrontMatter, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("missing front matter: the file must start with a `---` line".to_owned());
    }
    let mut block = Vec::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        block.push(line);
    }
    if !closed {
        return Err("front matter is not closed by a `---` line".to_owned());
    }
    let fields = yaml_fields(&block)?;
    let field = |key: &str| {
        fields
            .iter()
            .rev()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value.trim().to_owned())
    };
    let name = field("name").ok_or("missing field `name`")?;
    let description = field("description").ok_or("missing field `description`")?;
    if name.is_empty() {
        return Err("invalid name: it is empty".to_owned());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "invalid name: longer than {MAX_NAME_CHARS} characters"
        ));
    }
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(format!(
            "invalid description: longer than {MAX_DESCRIPTION_CHARS} characters"
        ));
    }
    Ok(FrontMatter {
        name,
        description,
        short_description: field("metadata.short-description").filter(|text| !text.is_empty()),
    })
}

/// The scalar fields of a front matter block as `(dotted key, value)` pairs, nested maps one
/// level deep (`metadata.short-description`).
fn yaml_fields(block: &[&str]) -> Result<Vec<(String, String)>, String> {
    let mut fields = Vec::new();
    let mut parent: Option<(String, usize)> = None;
    let mut index = 0;
    while index < block.len() {
        let line = block[index];
        index += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let Some((key, rest)) = trimmed.split_once(':') else {
            return Err(format!("invalid front matter line: `{trimmed}`"));
        };
        let key = unquote_key(key.trim());
        let rest = rest.trim();
        let key = match &parent {
            Some((parent, parent_indent)) if indent > *parent_indent => format!("{parent}.{key}"),
            _ => {
                parent = None;
                key
            }
        };
        // The lines indented deeper than this key belong to its value.
        let mut continuation = Vec::new();
        while index < block.len() {
            let next = block[index];
            let next_indent = next.len() - next.trim_start().len();
            if !next.trim().is_empty() && next_indent <= indent {
                break;
            }
            continuation.push(next);
            index += 1;
        }
        if rest.is_empty() && !continuation.is_empty() && looks_like_map(&continuation) {
            // A nested map: its lines are read as keys under this one.
            parent = Some((key, indent));
            index -= continuation.len();
            continue;
        }
        fields.push((key, scalar(rest, &continuation)?));
    }
    Ok(fields)
}

fn looks_like_map(lines: &[&str]) -> bool {
    lines
        .iter()
        .map(|line| line.trim())
        .find(|line| !line.is_empty())
        .is_some_and(|line| line.contains(':') && !line.starts_with('-'))
}

fn unquote_key(key: &str) -> String {
    let quoted = |quote: char| key.len() >= 2 && key.starts_with(quote) && key.ends_with(quote);
    if quoted('"') || quoted('\'') {
        key[1..key.len() - 1].to_owned()
    } else {
        key.to_owned()
    }
}

/// The value of a scalar written as `rest` on the key's line, followed by `continuation`.
fn scalar(rest: &str, continuation: &[&str]) -> Result<String, String> {
    let lines = || {
        continuation
            .iter()
            .map(|line| line.trim())
            .collect::<Vec<_>>()
    };
    if let Some(style) = rest.chars().next().filter(|c| *c == '|' || *c == '>') {
        let lines = lines();
        let text = if style == '|' {
            lines.join("\n")
        } else {
            fold(&lines)
        };
        return Ok(text.trim_end().to_owned());
    }
    if rest.starts_with('"') || rest.starts_with('\'') {
        let mut text = rest.to_owned();
        for line in lines() {
            text.push(' ');
            text.push_str(line);
        }
        return unquote(&text);
    }
    let mut words = vec![strip_comment(rest)];
    words.extend(lines().into_iter().map(strip_comment));
    Ok(fold(&words))
}

/// Joins lines as a folded scalar does: single line breaks become spaces, blank lines stay.
fn fold(lines: &[&str]) -> String {
    let mut text = String::new();
    for line in lines {
        if line.is_empty() {
            text.push('\n');
        } else {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push(' ');
            }
            text.push_str(line);
        }
    }
    text.trim().to_owned()
}

fn strip_comment(text: &str) -> &str {
    match text.find(" #") {
        Some(at) => text[..at].trim_end(),
        None => text,
    }
}

/// The text of a double- or single-quoted scalar.
fn unquote(text: &str) -> Result<String, String> {
    let quote = text.chars().next().unwrap_or('"');
    let mut out = String::new();
    let mut chars = text[1..].chars();
    while let Some(c) = chars.next() {
        if c == quote {
            if quote == '\'' && chars.as_str().starts_with('\'') {
                chars.next();
                out.push('\'');
                continue;
            }
            return Ok(out);
        }
        if c == '\\' && quote == '"' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => break,
            }
        } else {
            out.push(c);
        }
    }
    Err("unterminated quoted value in front matter".to_owned())
}

/// The developer message that lists `skills` to the model, or `None` when there are none.
pub fn model_message<'a>(skills: impl IntoIterator<Item = &'a SkillMetadata>) -> Option<String> {
    let entries: Vec<String> = skills
        .into_iter()
        .map(|skill| {
            let description = skill.description.replace('\n', " ");
            format!("- {}: {description} (file: {})", skill.name, skill.path)
        })
        .collect();
    if entries.is_empty() {
        return None;
    }
    Some(format!(
        "<skills_instructions>\n## Skills\nA skill is a `SKILL.md` file of instructions for one kind of task, kept on this machine. Each skill below is given with its name, what it is for and where its file is.\n### Available skills\n{}\n### Using skills\n- Use a skill when the user names it (`$name` or in words) or when the task plainly matches its description; several may apply at once. A skill used in one turn is not carried into the next unless named again.\n- Before using a skill, read its `SKILL.md`, only as far as the task needs. Open the files it points to (references, scripts, assets) only when needed, and prefer running its scripts to retyping them.\n- Say in one short line which skills you use. When a skill's file cannot be read or does not fit, say so briefly and carry on without it.\n</skills_instructions>",
        entries.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn front_matter_reads_plain_quoted_folded_and_nested_values() {
        let text = "---\nname: \"demo\"\ndescription: >\n  Does one\n  thing.\nmetadata:\n  short-description: 'it''s short' # note\n---\nbody\n";
        assert_eq!(
            parse_front_matter(text),
            Ok(FrontMatter {
                name: "demo".into(),
                description: "Does one thing.".into(),
                short_description: Some("it's short".into()),
            })
        );
        let plain = "---\nname: plain\ndescription: spans\n  two lines\n---\n";
        assert_eq!(
            parse_front_matter(plain).map(|front| front.description),
            Ok("spans two lines".to_owned())
        );
    }

    #[test]
    fn front_matter_errors_name_what_is_missing() {
        assert_eq!(
            parse_front_matter("---\nname: bad\n---\n"),
            Err("missing field `description`".to_owned())
        );
        assert_eq!(
            parse_front_matter("---\ndescription: x\n---\n"),
            Err("missing field `name`".to_owned())
        );
        assert!(parse_front_matter("no front matter").is_err());
        assert!(parse_front_matter("---\nname: x\n").is_err());
        let long = format!("---\nname: {}\ndescription: x\n---\n", "n".repeat(65));
        assert!(parse_front_matter(&long).is_err());
    }

    #[test]
    fn a_path_setting_wins_over_a_name_setting_and_the_last_of_a_kind_wins() {
        let setting = |path: Option<&str>, name: Option<&str>, enabled| SkillSetting {
            path: path.map(str::to_owned),
            name: name.map(str::to_owned),
            enabled,
        };
        let settings = vec![
            setting(None, Some("a"), false),
            setting(Some("/s/a/SKILL.md"), None, true),
            setting(None, Some("b"), false),
            setting(None, Some("b"), true),
        ];
        assert!(is_enabled(&settings, "a", "/s/a/SKILL.md"));
        assert!(!is_enabled(&settings, "a", "/t/a/SKILL.md"));
        assert!(is_enabled(&settings, "b", "/s/b/SKILL.md"));
        assert!(is_enabled(&settings, "c", "/s/c/SKILL.md"));
    }
}
