//! `externalAgentConfig/detect` and `externalAgentConfig/import`: another agent's setup brought
//! over (the files are `crate::external_agent`; this module writes `config.toml`).
//!
//! MCP servers and hooks run commands, so an import that adds either is refused on a network
//! listener (`ClientPolicy::allows_command_imports`), and what it adds is disabled: servers
//! with `enabled = false`, hooks untrusted with `enabled = false` in `[hooks.state]`, until the
//! operator enables them.

use std::path::{Path, PathBuf};

use app_server_protocol::config_requests::{ConfigEdit, MergeStrategy};
use app_server_protocol::external_agent::{
    ExternalAgentConfigDetectResponse, ExternalAgentConfigImportItemTypeFailure,
    ExternalAgentConfigImportItemTypeSuccess, ExternalAgentConfigImportTypeResult,
    ExternalAgentConfigMigrationItem, ExternalAgentConfigMigrationItemType as ItemType,
};
use serde_json::{Value, json};

use crate::audit::AuditEvent;
use crate::config::write::write_user_config;
use crate::engine::{Engine, EngineError};
use crate::external_agent::{Scope, mcp_server_table, valid_server_name};

/// The most items one import takes.
pub const MAX_IMPORT_ITEMS: usize = 256;

/// The hook events Tandem runs: its name in `.claude/settings.json` and the key label of `[hooks.state]`.
const HOOK_EVENTS: [(&str, &str); 4] = [
    ("PreToolUse", "pre_tool_use"),
    ("PostToolUse", "post_tool_use"),
    ("UserPromptSubmit", "user_prompt_submit"),
    ("Stop", "stop"),
];

impl Engine {
    /// `externalAgentConfig/detect` over `cwds` (already checked against the connection's
    /// file roots) and, with `include_home`, the user's home directory.
    pub async fn detect_external_agent_config(
        &self,
        cwds: Vec<PathBuf>,
        include_home: bool,
    ) -> Result<ExternalAgentConfigDetectResponse, EngineError> {
        let config = self.config();
        let (home, config_file) = (config.home.clone(), config.config_file.clone());
        let items = tokio::task::spawn_blocking(move || {
            let mut items = Vec::new();
            if include_home && let Some(user_home) = user_home() {
                items.extend(Scope::home(&user_home, &home).detect(&config_file));
            }
            for cwd in cwds {
                items.extend(Scope::repository(&cwd).detect(&config_file));
            }
            items
        })
        .await
        .map_err(|error| EngineError::Internal(format!("detection failed: {error}")))?;
        Ok(ExternalAgentConfigDetectResponse {
            items,
            connectors: Vec::new(),
        })
    }

    /// `externalAgentConfig/import`: each item's outcome, in order. The caller checked that
    /// each item's `cwd` lies within the connection's file roots.
    pub async fn import_external_agent_config(
        &self,
        items: Vec<ExternalAgentConfigMigrationItem>,
    ) -> Result<Vec<ExternalAgentConfigImportTypeResult>, EngineError> {
        if items.len() > MAX_IMPORT_ITEMS {
            return Err(EngineError::InvalidRequest(format!(
                "externalAgentConfig/import takes at most {MAX_IMPORT_ITEMS} items, got {}",
                items.len()
            )));
        }
        let runs_commands = items
            .iter()
            .any(|item| matches!(item.item_type, ItemType::McpServerConfig | ItemType::Hooks));
        if runs_commands && !self.client_policy().allows_command_imports() {
            let reason = "an import that adds MCP servers or hooks is allowed only on a local connection (stdio)";
            self.audit(&AuditEvent::Refused {
                setting: "externalAgentConfig/import".into(),
                reason: reason.to_owned(),
            });
            return Err(EngineError::InvalidRequest(reason.to_owned()));
        }
        let mut results = Vec::new();
        for item in items {
            results.push(self.import_item(item).await);
        }
        Ok(results)
    }

    async fn import_item(
        &self,
        item: ExternalAgentConfigMigrationItem,
    ) -> ExternalAgentConfigImportTypeResult {
        let mut result = ExternalAgentConfigImportTypeResult {
            item_type: item.item_type,
            successes: Vec::new(),
            failures: Vec::new(),
        };
        let cwd = item.cwd.clone().filter(|cwd| !cwd.is_empty());
        let config = self.config();
        let scope = match &cwd {
            Some(cwd) => Scope::repository(Path::new(cwd)),
            None => match user_home() {
                Some(user_home) => Scope::home(&user_home, &config.home),
                None => {
                    result
                        .failures
                        .push(failure(&item, None, "read", "HOME is not set"));
                    return result;
                }
            },
        };
        let outcome = match item.item_type {
            ItemType::AgentsMd => {
                let source = scope.claude_md.to_string_lossy().into_owned();
                let target = scope.agents_md.to_string_lossy().into_owned();
                match blocking(move || scope.import_agents_md()).await {
                    Ok(()) => Ok(vec![(source, target)]),
                    Err(message) => Err(vec![(Some(source), message)]),
                }
            }
            ItemType::Skills => {
                let names: Vec<String> = item
                    .details
                    .as_ref()
                    .map(|details| {
                        details
                            .skills
                            .iter()
                            .map(|skill| skill.name.clone())
                            .collect()
                    })
                    .unwrap_or_default();
                let copied = blocking(move || {
                    Ok(names
                        .into_iter()
                        .map(|name| (name.clone(), scope.import_skill(&name)))
                        .collect::<Vec<_>>())
                })
                .await;
                for (name, outcome) in copied.unwrap_or_default() {
                    match outcome {
                        Ok(_) => result.successes.push(success(&item, &name, &name)),
                        Err(message) => {
                            result
                                .failures
                                .push(failure(&item, Some(name), "write", &message))
                        }
                    }
                }
                return result;
            }
            ItemType::McpServerConfig => self.import_mcp_servers(&item, scope).await,
            ItemType::Hooks => self.import_hooks(&item, scope).await,
            ItemType::Config
            | ItemType::Plugins
            | ItemType::Subagents
            | ItemType::Commands
            | ItemType::Memory
            | ItemType::Sessions => Err(vec![(
                None,
                "importing this kind of item is not supported by this server".to_owned(),
            )]),
        };
        match outcome {
            Ok(pairs) => {
                for (source, target) in pairs {
                    result.successes.push(success(&item, &source, &target));
                }
            }
            Err(failures) => {
                for (source, message) in failures {
                    let stage = if source.is_some() { "write" } else { "read" };
                    result
                        .failures
                        .push(failure(&item, source, stage, &message));
                }
            }
        }
        result
    }

    /// Adds the scope's MCP servers named by `item` to `config.toml`, disabled; a server
    /// already configured is left as it is and reported as a failure.
    async fn import_mcp_servers(
        &self,
        item: &ExternalAgentConfigMigrationItem,
        scope: Scope,
    ) -> Result<Vec<(String, String)>, Vec<(Option<String>, String)>> {
        let wanted: Vec<String> = item
            .details
            .as_ref()
            .map(|details| {
                details
                    .mcp_servers
                    .iter()
                    .map(|server| server.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        let servers = blocking(move || scope.mcp_servers())
            .await
            .map_err(|message| vec![(None, message)])?;
        let current = self.config();
        let mut edits = Vec::new();
        let mut names = Vec::new();
        let mut failures = Vec::new();
        for name in wanted {
            let configured = current.mcp_servers.iter().any(|server| server.name == name);
            let table = servers
                .iter()
                .find(|(server, _)| *server == name)
                .and_then(|(_, server)| mcp_server_table(server));
            match table {
                _ if !valid_server_name(&name) => {
                    failures.push((Some(name), "invalid MCP server name".to_owned()));
                }
                _ if configured => failures.push((Some(name), "already configured".to_owned())),
                None => failures.push((
                    Some(name),
                    "no such server with a command or a URL".to_owned(),
                )),
                Some(table) => {
                    edits.push(ConfigEdit {
                        key_path: format!("mcp_servers.{name}"),
                        value: Value::Object(table),
                        merge_strategy: MergeStrategy::Replace,
                    });
                    names.push(name);
                }
            }
        }
        if !edits.is_empty() {
            self.write_import(edits)
                .await
                .map_err(|message| vec![(None, message)])?;
        }
        if names.is_empty() && !failures.is_empty() {
            return Err(failures);
        }
        Ok(names.into_iter().map(|name| (name.clone(), name)).collect())
    }

    /// Adds the scope's hooks of the events named by `item` to `config.toml`, each untrusted
    /// and disabled in `[hooks.state]`.
    async fn import_hooks(
        &self,
        item: &ExternalAgentConfigMigrationItem,
        scope: Scope,
    ) -> Result<Vec<(String, String)>, Vec<(Option<String>, String)>> {
        let wanted: Vec<String> = item
            .details
            .as_ref()
            .map(|details| details.hooks.iter().map(|hook| hook.name.clone()).collect())
            .unwrap_or_default();
        let hooks = blocking(move || scope.hooks())
            .await
            .map_err(|message| vec![(None, message)])?;
        let current = self.config();
        let config_file = current.config_file.clone();
        let file: toml::Table = {
            let path = config_file.clone();
            blocking(move || match std::fs::read_to_string(&path) {
                Ok(text) => toml::from_str(&text).map_err(|error| error.to_string()),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    Ok(toml::Table::new())
                }
                Err(error) => Err(error.to_string()),
            })
            .await
            .map_err(|message| vec![(None, message)])?
        };
        let section = file.get("hooks").and_then(toml::Value::as_table);
        let mut state = section
            .and_then(|section| section.get("state"))
            .map(|state| serde_json::to_value(state).unwrap_or_else(|_| json!({})))
            .unwrap_or_else(|| json!({}));
        let mut edits = Vec::new();
        let mut added = Vec::new();
        let mut failures = Vec::new();
        for event in wanted {
            let Some((_, label)) = HOOK_EVENTS.iter().find(|(name, _)| *name == event) else {
                failures.push((
                    Some(event),
                    "hooks of this event are not run by this server".to_owned(),
                ));
                continue;
            };
            let Some(groups) = hooks
                .iter()
                .find(|(name, _)| *name == event)
                .and_then(|(_, groups)| groups.as_array())
            else {
                failures.push((Some(event), "no such hook event in the settings".to_owned()));
                continue;
            };
            let mut existing: Vec<Value> = section
                .and_then(|section| section.get(event.as_str()))
                .map(|groups| serde_json::to_value(groups).unwrap_or_else(|_| json!([])))
                .and_then(|groups| groups.as_array().cloned())
                .unwrap_or_default();
            for group in groups {
                let handlers: Vec<Value> = group
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|handler| {
                        handler.get("type").and_then(Value::as_str) == Some("command")
                    })
                    .map(|handler| {
                        let mut kept = serde_json::Map::new();
                        for key in ["type", "command", "timeout", "async", "statusMessage"] {
                            if let Some(value) = handler.get(key) {
                                kept.insert(key.into(), value.clone());
                            }
                        }
                        Value::Object(kept)
                    })
                    .collect();
                if handlers.is_empty() {
                    continue;
                }
                let index = existing.len();
                for handler_index in 0..handlers.len() {
                    let key = format!("{}:{label}:{index}:{handler_index}", config_file.display());
                    state[key.as_str()] = json!({"enabled": false});
                }
                let mut new_group = serde_json::Map::new();
                if let Some(matcher) = group.get("matcher").filter(|matcher| matcher.is_string()) {
                    new_group.insert("matcher".into(), matcher.clone());
                }
                new_group.insert("hooks".into(), Value::Array(handlers));
                existing.push(Value::Object(new_group));
            }
            edits.push(ConfigEdit {
                key_path: format!("hooks.{event}"),
                value: Value::Array(existing),
                merge_strategy: MergeStrategy::Replace,
            });
            added.push(event);
        }
        if !edits.is_empty() {
            edits.push(ConfigEdit {
                key_path: "hooks.state".into(),
                value: state,
                merge_strategy: MergeStrategy::Replace,
            });
            self.write_import(edits)
                .await
                .map_err(|message| vec![(None, message)])?;
        }
        if added.is_empty() && !failures.is_empty() {
            return Err(failures);
        }
        Ok(added
            .into_iter()
            .map(|event| (event.clone(), event))
            .collect())
    }

    /// Writes an import's `edits` to `config.toml` (subject to `clients.allow_config_writes`)
    /// and adopts the result.
    async fn write_import(&self, edits: Vec<ConfigEdit>) -> Result<(), String> {
        if !self.client_policy().allows_config_writes() {
            return Err(crate::config::write::ConfigWriteError::Disabled.to_string());
        }
        let current = self.config();
        let written = {
            let (current, edits) = (current.clone(), edits.clone());
            tokio::task::spawn_blocking(move || write_user_config(&current, &edits, None))
                .await
                .map_err(|error| error.to_string())?
                .map_err(|error| error.to_string())?
        };
        for edit in &edits {
            self.audit(&AuditEvent::SettingChanged {
                key: edit.key_path.clone(),
                value: edit.value.to_string(),
            });
        }
        self.adopt(&current, written.config);
        Ok(())
    }
}

/// The user's home directory (`$HOME`).
fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|error| Err(format!("import failed: {error}")))
}

fn success(
    item: &ExternalAgentConfigMigrationItem,
    source: &str,
    target: &str,
) -> ExternalAgentConfigImportItemTypeSuccess {
    ExternalAgentConfigImportItemTypeSuccess {
        item_type: item.item_type,
        cwd: item.cwd.clone(),
        source: Some(source.to_owned()),
        target: Some(target.to_owned()),
        title: None,
    }
}

fn failure(
    item: &ExternalAgentConfigMigrationItem,
    source: Option<String>,
    stage: &str,
    message: &str,
) -> ExternalAgentConfigImportItemTypeFailure {
    ExternalAgentConfigImportItemTypeFailure {
        item_type: item.item_type,
        cwd: item.cwd.clone(),
        source,
        failure_stage: stage.to_owned(),
        message: message.to_owned(),
        error_type: None,
        sub_error_type: None,
    }
}
