//! Hooks from the operator's `config.toml`: reading the `[hooks]` table, the trust of each hook
//! (`[hooks.state]`, with the reference's keys and hashes), and running them (`run.rs`).
//!
//! Hooks are read from the user's `config.toml` file itself, never from the merged
//! configuration: neither a profile, a `-c` flag nor a client's `config` overrides adds one, and
//! a client cannot write the `hooks` table (`access.rs`). A hook runs only while it is enabled
//! and trusted, that is while its `[hooks.state."KEY"]` entry holds `trusted_hash` equal to its
//! current hash; editing the hook changes the hash, and it stops running until the operator
//! trusts it again.
//!
//! The table has one array of matcher groups per event, each group a `matcher` (a regular
//! expression over tool names, for the tool events) and `hooks`, its handlers:
//!
//! ```toml
//! [[hooks.PreToolUse]]
//! matcher = "Bash"
//! [[hooks.PreToolUse.hooks]]
//! type = "command"
//! command = "./check.sh"
//! timeout = 30
//! ```

pub mod run;

use std::path::Path;

use app_server_protocol::hooks::{
    HookErrorInfo, HookEventName, HookHandler, HookMetadata, HookSource, HookTrustStatus,
    HooksListEntry,
};
use serde_json::json;

/// How long a hook may run when its `timeout` is unset, in seconds.
pub const DEFAULT_TIMEOUT_SEC: u64 = 600;
/// The most bytes of `config.toml` read for hooks.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// The events Tandem runs hooks for, in the order their hooks are listed and numbered:
/// `(table name, event, key label, run-id label, takes a matcher)`.
const EVENTS: [(&str, HookEventName, &str, &str, bool); 4] = [
    (
        "PreToolUse",
        HookEventName::PreToolUse,
        "pre_tool_use",
        "pre-tool-use",
        true,
    ),
    (
        "PostToolUse",
        HookEventName::PostToolUse,
        "post_tool_use",
        "post-tool-use",
        true,
    ),
    (
        "UserPromptSubmit",
        HookEventName::UserPromptSubmit,
        "user_prompt_submit",
        "user-prompt-submit",
        false,
    ),
    ("Stop", HookEventName::Stop, "stop", "stop", false),
];

/// Events of the reference that Tandem does not run: configured hooks for them are reported
/// as warnings.
const OTHER_EVENTS: [&str; 8] = [
    "PermissionRequest",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "SubagentStart",
    "SubagentStop",
    "Notification",
];

/// One configured command hook.
#[derive(Clone, Debug)]
pub struct Hook {
    /// What `hooks/list` reports about it.
    pub metadata: HookMetadata,
    /// The command line.
    pub command: String,
    /// The compiled matcher, for the tool events (`None`: every tool).
    pub matcher: Option<regex::Regex>,
}

impl Hook {
    /// Whether it runs: enabled and trusted.
    pub fn runs(&self) -> bool {
        self.metadata.enabled && self.metadata.trust_status == HookTrustStatus::Trusted
    }

    /// Whether it applies to a call of the tool named `tool_name` (always, for events without
    /// matchers).
    pub fn matches(&self, tool_name: &str) -> bool {
        self.matcher
            .as_ref()
            .is_none_or(|matcher| matcher.is_match(tool_name))
    }

    /// The id of one of its runs: `EVENT:DISPLAY_ORDER:SOURCE_PATH`.
    pub fn run_id(&self) -> String {
        let label = EVENTS
            .iter()
            .find(|(_, event, ..)| *event == self.metadata.event_name)
            .map_or("unknown", |(_, _, _, run_label, _)| run_label);
        format!(
            "{label}:{}:{}",
            self.metadata.display_order, self.metadata.source_path
        )
    }
}

/// The hooks of one `config.toml`, with what could not be read.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    /// Every configured hook, trusted or not, in listing order.
    pub hooks: Vec<Hook>,
    /// Problems that left some hooks out.
    pub warnings: Vec<String>,
    /// The file could not be read or parsed.
    pub errors: Vec<HookErrorInfo>,
}

impl Hooks {
    /// Reads the hooks of `home/config.toml` (none when there is no file). Blocks.
    pub fn load(home: &Path) -> Hooks {
        let path = home.join("config.toml");
        let source = path.to_string_lossy().into_owned();
        let text = match read_capped(&path) {
            Ok(Some(text)) => text,
            Ok(None) => return Hooks::default(),
            Err(message) => {
                return Hooks {
                    errors: vec![HookErrorInfo {
                        path: source,
                        message,
                    }],
                    ..Hooks::default()
                };
            }
        };
        match toml::from_str::<toml::Table>(&text) {
            Ok(table) => Hooks::from_table(&table, &source),
            Err(error) => Hooks {
                errors: vec![HookErrorInfo {
                    path: source,
                    message: error.message().to_owned(),
                }],
                ..Hooks::default()
            },
        }
    }

    /// The hooks of a parsed `config.toml` found at `source_path`.
    pub fn from_table(table: &toml::Table, source_path: &str) -> Hooks {
        let mut hooks = Hooks::default();
        let Some(section) = table.get("hooks").and_then(toml::Value::as_table) else {
            return hooks;
        };
        let states = section
            .get("state")
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_default();
        for name in section.keys().filter(|name| *name != "state") {
            let known = EVENTS.iter().any(|(table_name, ..)| table_name == name);
            if known {
                continue;
            }
            if OTHER_EVENTS.contains(&name.as_str()) {
                hooks.warnings.push(format!(
                    "`{name}` hooks in {source_path} are not run by this server"
                ));
            } else {
                hooks
                    .warnings
                    .push(format!("unknown hook event `{name}` in {source_path}"));
            }
        }
        let mut display_order = 0_i64;
        for (table_name, event, label, _, takes_matcher) in EVENTS {
            let Some(groups) = section.get(table_name) else {
                continue;
            };
            let Some(groups) = groups.as_array() else {
                hooks.warnings.push(format!(
                    "`hooks.{table_name}` in {source_path} must be an array of matcher groups"
                ));
                continue;
            };
            for (group_index, group) in groups.iter().enumerate() {
                let configured_matcher = group.get("matcher").and_then(toml::Value::as_str);
                let matcher = configured_matcher.filter(|_| takes_matcher);
                let compiled = match matcher {
                    Some(pattern) => match compile_matcher(pattern) {
                        Ok(compiled) => compiled,
                        Err(error) => {
                            hooks.warnings.push(format!(
                                "invalid matcher {pattern:?} in {source_path}: {error}"
                            ));
                            continue;
                        }
                    },
                    None => None,
                };
                let handlers = group
                    .get("hooks")
                    .and_then(toml::Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for (handler_index, handler) in handlers.iter().enumerate() {
                    let kind = handler.get("type").and_then(toml::Value::as_str);
                    if kind != Some("command") {
                        hooks.warnings.push(format!(
                            "skipping {} hook in {source_path}: only command hooks are run by this server",
                            kind.unwrap_or("untyped")
                        ));
                        continue;
                    }
                    let command = handler
                        .get("command")
                        .and_then(toml::Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    if command.trim().is_empty() {
                        hooks
                            .warnings
                            .push(format!("skipping empty hook command in {source_path}"));
                        continue;
                    }
                    let timeout_sec = handler
                        .get("timeout")
                        .and_then(toml::Value::as_integer)
                        .map_or(DEFAULT_TIMEOUT_SEC, |timeout| timeout.max(1) as u64);
                    let run_async = handler
                        .get("async")
                        .and_then(toml::Value::as_bool)
                        .unwrap_or(false);
                    let status_message = handler
                        .get("statusMessage")
                        .and_then(toml::Value::as_str)
                        .map(str::to_owned);
                    let current_hash = hook_hash(
                        label,
                        matcher,
                        &command,
                        timeout_sec,
                        run_async,
                        status_message.as_deref(),
                    );
                    let key = format!("{source_path}:{label}:{group_index}:{handler_index}");
                    let state = states.get(&key).and_then(toml::Value::as_table);
                    let enabled = state
                        .and_then(|state| state.get("enabled"))
                        .and_then(toml::Value::as_bool)
                        != Some(false);
                    let trusted_hash = state
                        .and_then(|state| state.get("trusted_hash"))
                        .and_then(toml::Value::as_str);
                    let trust_status = match trusted_hash {
                        Some(trusted) if trusted == current_hash => HookTrustStatus::Trusted,
                        Some(_) => HookTrustStatus::Modified,
                        None => HookTrustStatus::Untrusted,
                    };
                    hooks.hooks.push(Hook {
                        metadata: HookMetadata {
                            key,
                            event_name: event,
                            handler: HookHandler::Command {
                                command: command.clone(),
                                run_async,
                            },
                            matcher: matcher.map(str::to_owned),
                            timeout_sec,
                            status_message,
                            additional_context_limit: None,
                            source_path: source_path.to_owned(),
                            source: HookSource::User,
                            plugin_id: None,
                            environment_id: None,
                            display_order,
                            enabled,
                            is_managed: false,
                            current_hash,
                            trust_status,
                        },
                        command,
                        matcher: compiled.clone(),
                    });
                    display_order += 1;
                }
            }
        }
        hooks
    }

    /// The `hooks/list` entry of `cwd`.
    pub fn list_entry(&self, cwd: String) -> HooksListEntry {
        HooksListEntry {
            cwd,
            hooks: self
                .hooks
                .iter()
                .map(|hook| hook.metadata.clone())
                .collect(),
            warnings: self.warnings.clone(),
            errors: self.errors.clone(),
        }
    }

    /// The hooks that run for `event` (and, for a tool event, the tool `tool_name`).
    pub fn running(&self, event: HookEventName, tool_name: &str) -> Vec<Hook> {
        self.hooks
            .iter()
            .filter(|hook| hook.metadata.event_name == event && hook.runs())
            .filter(|hook| hook.matches(tool_name))
            .cloned()
            .collect()
    }
}

/// A matcher as the reference reads it: empty or `*` for every tool, else a regular
/// expression that must match the whole tool name.
fn compile_matcher(pattern: &str) -> Result<Option<regex::Regex>, regex::Error> {
    if pattern.is_empty() || pattern == "*" {
        return Ok(None);
    }
    regex::Regex::new(&format!("^(?:{pattern})$")).map(Some)
}

/// The hash of one hook as the reference computes it, so that its `trusted_hash` values carry
/// over: `sha256:` and the hex SHA-256 of compact JSON with sorted keys of
/// `{event_name, matcher?, hooks: [{type, command, timeout, async, statusMessage?}]}`, absent
/// optional fields left out.
pub fn hook_hash(
    label: &str,
    matcher: Option<&str>,
    command: &str,
    timeout_sec: u64,
    run_async: bool,
    status_message: Option<&str>,
) -> String {
    let mut handler = json!({
        "type": "command",
        "command": command,
        "timeout": timeout_sec,
        "async": run_async,
    });
    if let Some(message) = status_message {
        handler["statusMessage"] = json!(message);
    }
    let mut identity = json!({"event_name": label, "hooks": [handler]});
    if let Some(matcher) = matcher {
        identity["matcher"] = json!(matcher);
    }
    crate::config::json_version(&identity)
}

fn read_capped(path: &Path) -> Result<Option<String>, String> {
    use std::io::Read as _;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.to_string()),
    };
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!("larger than {MAX_CONFIG_BYTES} bytes"));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "not UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// The hashes codex-cli 0.169.0 reported in `hooks/list` for these hooks.
    #[test]
    fn hashes_are_the_references() {
        assert_eq!(
            hook_hash(
                "pre_tool_use",
                Some("Bash"),
                "echo pre",
                30,
                false,
                Some("checking")
            ),
            "sha256:68e9868377da83aff4745fcb8d03930d99138321eeefc7d0b6ab04cd864d9dad"
        );
        assert_eq!(
            hook_hash("stop", None, "echo stop", 600, false, None),
            "sha256:236335e9e512004a0f5f42af65a07ea9059bd9a23dbb68286ed57fecf2b69ddf"
        );
    }

    #[test]
    fn keys_trust_and_matchers_follow_the_reference() {
        let table: toml::Table = toml::from_str(
            r#"
[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "echo stop"

[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "echo pre"
timeout = 30
statusMessage = "checking"

[[hooks.UserPromptSubmit]]
matcher = "["
[[hooks.UserPromptSubmit.hooks]]
type = "prompt"

[[hooks.SessionStart]]

[hooks.state."/h/config.toml:stop:0:0"]
trusted_hash = "sha256:236335e9e512004a0f5f42af65a07ea9059bd9a23dbb68286ed57fecf2b69ddf"
[hooks.state."/h/config.toml:pre_tool_use:0:0"]
trusted_hash = "sha256:0000"
"#,
        )
        .unwrap();
        let hooks = Hooks::from_table(&table, "/h/config.toml");
        let listed: Vec<(&str, i64, HookTrustStatus)> = hooks
            .hooks
            .iter()
            .map(|hook| {
                (
                    hook.metadata.key.as_str(),
                    hook.metadata.display_order,
                    hook.metadata.trust_status,
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                (
                    "/h/config.toml:pre_tool_use:0:0",
                    0,
                    HookTrustStatus::Modified
                ),
                ("/h/config.toml:stop:0:0", 1, HookTrustStatus::Trusted),
            ]
        );
        assert_eq!(hooks.hooks[1].run_id(), "stop:1:/h/config.toml");
        assert!(hooks.hooks[0].matches("Bash"));
        assert!(!hooks.hooks[0].matches("BashOutput"));
        assert_eq!(hooks.running(HookEventName::Stop, "").len(), 1);
        assert!(hooks.running(HookEventName::PreToolUse, "Bash").is_empty());
        assert_eq!(hooks.warnings.len(), 2, "{:?}", hooks.warnings);
    }
}
