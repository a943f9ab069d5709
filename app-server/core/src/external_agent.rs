//! Another agent's setup on disk (`CLAUDE.md`, `.mcp.json`, `.claude/`): what `externalAgentConfig/detect` offers and the file side of
//! `externalAgentConfig/import` (the `config.toml` side is `engine/external_agent.rs`).
//!
//! Read from a repository: `CLAUDE.md`, `.mcp.json` (`mcpServers`), `.claude/settings.json`
//! (`hooks`) and `.claude/skills/*/SKILL.md`; from the home directory: `~/.claude/CLAUDE.md`,
//! `~/.claude.json` (`mcpServers`), `~/.claude/settings.json` and `~/.claude/skills/`. JSON files
//! are read up to [`MAX_JSON_BYTES`]; a skill copied over holds at most [`MAX_SKILL_FILES`]
//! files and [`MAX_SKILL_BYTES`] bytes, symbolic links left out. Blocks: call it from a
//! blocking thread.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use app_server_protocol::external_agent::{
    ExternalAgentConfigMigrationItem, ExternalAgentConfigMigrationItemType as ItemType,
    MigrationDetails, NamedMigration,
};
use serde_json::Value;

/// The most bytes of a JSON settings file read.
pub const MAX_JSON_BYTES: u64 = 4 * 1024 * 1024;
/// The most files one imported skill may hold.
pub const MAX_SKILL_FILES: usize = 1000;
/// The most bytes one imported skill may hold.
pub const MAX_SKILL_BYTES: u64 = 64 * 1024 * 1024;

/// Where a scope's setup lives and where it goes.
pub struct Scope {
    /// The repository, or `None` for the home.
    pub cwd: Option<PathBuf>,
    /// `CLAUDE.md` to read.
    pub claude_md: PathBuf,
    /// `AGENTS.md` to write.
    pub agents_md: PathBuf,
    /// The JSON file whose `mcpServers` to read.
    pub mcp_json: PathBuf,
    /// The settings whose `hooks` to read.
    pub settings: PathBuf,
    /// The skills directory to read.
    pub skills: PathBuf,
    /// The skills directory to write.
    pub target_skills: PathBuf,
}

impl Scope {
    /// A repository's scope.
    pub fn repository(cwd: &Path) -> Scope {
        Scope {
            cwd: Some(cwd.to_path_buf()),
            claude_md: cwd.join("CLAUDE.md"),
            agents_md: cwd.join("AGENTS.md"),
            mcp_json: cwd.join(".mcp.json"),
            settings: cwd.join(".claude/settings.json"),
            skills: cwd.join(".claude/skills"),
            target_skills: cwd.join(".agents/skills"),
        }
    }

    /// The home scope: the user's `user_home`, written into `tandem_home`.
    pub fn home(user_home: &Path, tandem_home: &Path) -> Scope {
        Scope {
            cwd: None,
            claude_md: user_home.join(".claude/CLAUDE.md"),
            agents_md: tandem_home.join("AGENTS.md"),
            mcp_json: user_home.join(".claude.json"),
            settings: user_home.join(".claude/settings.json"),
            skills: user_home.join(".claude/skills"),
            target_skills: crate::skills::user_skills_dir(tandem_home),
        }
    }

    fn cwd_text(&self) -> Option<String> {
        self.cwd
            .as_ref()
            .map(|cwd| cwd.to_string_lossy().into_owned())
    }

    /// What this scope offers, in the reference's order: MCP servers, hooks, skills,
    /// `AGENTS.md`.
    pub fn detect(&self, config_file: &Path) -> Vec<ExternalAgentConfigMigrationItem> {
        let mut items = Vec::new();
        let item = |item_type, description: String, details| ExternalAgentConfigMigrationItem {
            item_type,
            description,
            cwd: self.cwd_text(),
            details,
        };
        let named = |names: Vec<String>| -> Vec<NamedMigration> {
            names
                .into_iter()
                .map(|name| NamedMigration { name })
                .collect()
        };
        let servers = self.mcp_servers().map(|servers| {
            servers
                .into_iter()
                .map(|(name, _)| name)
                .collect::<Vec<_>>()
        });
        if let Ok(servers) = servers
            && !servers.is_empty()
        {
            items.push(item(
                ItemType::McpServerConfig,
                format!(
                    "Add the MCP servers of {} to {}, disabled until you enable them",
                    self.mcp_json.display(),
                    config_file.display()
                ),
                Some(MigrationDetails {
                    mcp_servers: named(servers),
                    ..MigrationDetails::default()
                }),
            ));
        }
        if let Ok(hooks) = self.hooks()
            && !hooks.is_empty()
        {
            items.push(item(
                ItemType::Hooks,
                format!(
                    "Add the hooks of {} to {}, untrusted and disabled until you enable them",
                    self.settings.display(),
                    config_file.display()
                ),
                Some(MigrationDetails {
                    hooks: named(hooks.into_iter().map(|(event, _)| event).collect()),
                    ..MigrationDetails::default()
                }),
            ));
        }
        let skills = self.skill_names();
        if !skills.is_empty() {
            items.push(item(
                ItemType::Skills,
                format!(
                    "Copy the skills of {} to {}",
                    self.skills.display(),
                    self.target_skills.display()
                ),
                Some(MigrationDetails {
                    skills: named(skills),
                    ..MigrationDetails::default()
                }),
            ));
        }
        if self.claude_md.is_file() && !self.agents_md.exists() {
            items.push(item(
                ItemType::AgentsMd,
                format!(
                    "Copy {} to {}",
                    self.claude_md.display(),
                    self.agents_md.display()
                ),
                None,
            ));
        }
        items
    }

    /// The `mcpServers` entries of the scope's JSON file, in name order.
    pub fn mcp_servers(&self) -> Result<Vec<(String, Value)>, String> {
        let value = read_json(&self.mcp_json)?;
        Ok(value
            .get("mcpServers")
            .and_then(Value::as_object)
            .map(|servers| {
                servers
                    .iter()
                    .map(|(name, server)| (name.clone(), server.clone()))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The `hooks` of the scope's settings: each event name with its matcher groups.
    pub fn hooks(&self) -> Result<Vec<(String, Value)>, String> {
        let value = read_json(&self.settings)?;
        Ok(value
            .get("hooks")
            .and_then(Value::as_object)
            .map(|hooks| {
                hooks
                    .iter()
                    .map(|(event, groups)| (event.clone(), groups.clone()))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The names of the skill directories (those holding a `SKILL.md`), in order.
    pub fn skill_names(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.skills) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
            .filter(|entry| entry.path().join(crate::skills::SKILL_FILE).is_file())
            .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
            .collect();
        names.sort();
        names
    }

    /// Copies `CLAUDE.md` to `AGENTS.md`, which must not exist.
    pub fn import_agents_md(&self) -> Result<(), String> {
        let text = std::fs::read(&self.claude_md)
            .map_err(|error| format!("cannot read {}: {error}", self.claude_md.display()))?;
        write_new(&self.agents_md, &text)
    }

    /// Copies the skill `name` into the target skills directory, where it must not exist.
    pub fn import_skill(&self, name: &str) -> Result<PathBuf, String> {
        if name.is_empty() || name.contains('/') || name.starts_with('.') {
            return Err(format!("invalid skill name `{name}`"));
        }
        let source = self.skills.join(name);
        let target = self.target_skills.join(name);
        if target.exists() {
            return Err(format!("{} already exists", target.display()));
        }
        let mut budget = (MAX_SKILL_FILES, MAX_SKILL_BYTES);
        let copied = copy_tree(&source, &target, &mut budget);
        if copied.is_err() {
            let _ = std::fs::remove_dir_all(&target);
        }
        copied.map(|()| target)
    }
}

/// The scope's JSON file, or an empty object when it does not exist.
fn read_json(path: &Path) -> Result<Value, String> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Value::Object(Default::default()));
        }
        Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
    };
    let mut bytes = Vec::new();
    file.take(MAX_JSON_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    if bytes.len() as u64 > MAX_JSON_BYTES {
        return Err(format!(
            "{} is larger than {MAX_JSON_BYTES} bytes",
            path.display()
        ));
    }
    serde_json::from_slice(&bytes).map_err(|error| format!("{}: {error}", path.display()))
}

fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write as _;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| format!("cannot create {}: {error}", parent.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists => format!("{} already exists", path.display()),
            _ => format!("cannot create {}: {error}", path.display()),
        })?;
    file.write_all(bytes)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))
}

/// Copies the regular files and directories of `source` into `target` within `budget`
/// (files, bytes); symbolic links are left out.
fn copy_tree(source: &Path, target: &Path, budget: &mut (usize, u64)) -> Result<(), String> {
    std::fs::create_dir_all(target)
        .map_err(|error| format!("cannot create {}: {error}", target.display()))?;
    let entries = std::fs::read_dir(source)
        .map_err(|error| format!("cannot read {}: {error}", source.display()))?;
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let to = target.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &to, budget)?;
        } else if kind.is_file() {
            let size = entry.metadata().map(|metadata| metadata.len()).unwrap_or(0);
            if budget.0 == 0 || size > budget.1 {
                return Err(format!(
                    "{} is larger than a skill may be ({MAX_SKILL_FILES} files, {MAX_SKILL_BYTES} bytes)",
                    source.display()
                ));
            }
            budget.0 -= 1;
            budget.1 -= size;
            let bytes = std::fs::read(entry.path())
                .map_err(|error| format!("cannot read {}: {error}", entry.path().display()))?;
            write_new(&to, &bytes)?;
        }
    }
    Ok(())
}

/// An `mcpServers` entry of `.mcp.json` as a `[mcp_servers.NAME]` table, disabled; `None` when
/// it names neither a command nor a URL.
pub fn mcp_server_table(server: &Value) -> Option<serde_json::Map<String, Value>> {
    let mut table = serde_json::Map::new();
    if let Some(command) = server.get("command").and_then(Value::as_str) {
        table.insert("command".into(), Value::from(command));
        if let Some(args) = server.get("args").and_then(Value::as_array) {
            let args: Vec<Value> = args.iter().filter(|arg| arg.is_string()).cloned().collect();
            table.insert("args".into(), Value::Array(args));
        }
        if let Some(env) = server.get("env").and_then(Value::as_object) {
            let env: serde_json::Map<String, Value> = env
                .iter()
                .filter(|(_, value)| value.is_string())
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            table.insert("env".into(), Value::Object(env));
        }
    } else if let Some(url) = server.get("url").and_then(Value::as_str) {
        table.insert("url".into(), Value::from(url));
        if let Some(headers) = server.get("headers").and_then(Value::as_object) {
            let headers: serde_json::Map<String, Value> = headers
                .iter()
                .filter(|(_, value)| value.is_string())
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            table.insert("http_headers".into(), Value::Object(headers));
        }
    } else {
        return None;
    }
    table.insert("enabled".into(), Value::Bool(false));
    Some(table)
}

/// Whether `name` may name a `[mcp_servers.NAME]` table.
pub fn valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
