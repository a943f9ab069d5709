//! `[clients]`: the operator's ceiling on what a client may obtain, and the fixed list of
//! config keys a client may set through `config` overrides (see `docs/configuration.md`).
//!
//! The table is read here; [`crate::access::ClientPolicy`] combines it with the front end's
//! defaults and applies it.

use std::collections::BTreeMap;

use crate::config::load::layer::{Tracked, join, split_dotted};
use crate::config::load::resolve::{UnknownKey, collect_unknown};
use crate::config::{ClientConfigAccess, ClientsConfig, ConfigError};

const PREFIX: &str = "clients";

const KEYS: &[&str] = &[
    "max_sandbox",
    "allow_client_config",
    "reveal_credentials",
    "fs_roots",
    "allow_config_writes",
    "allow_mcp_server_calls",
];

/// The config keys a client may set through `config` overrides (`thread/start`,
/// `newConversation`, the MCP `codex` tool) unless the operator allows every key with
/// `clients.allow_client_config = "all"`: model choice, reasoning, instructions, approvals
/// and the sandbox (both still bounded by `clients.max_sandbox`), choosing one of the
/// operator's profiles or providers. Nothing here defines a provider, an endpoint, a header,
/// a credential's variable, a command, an MCP server or a path outside the sandbox.
pub const CLIENT_CONFIG_KEYS: &[&str] = &[
    "model",
    "model_provider",
    "profile",
    "model_reasoning_effort",
    "model_reasoning_summary",
    "instructions",
    "developer_instructions",
    "compact_prompt",
    "approval_policy",
    "sandbox_mode",
    "sandbox_workspace_write.writable_roots",
    "sandbox_workspace_write.network_access",
    "sandbox_workspace_write.exclude_tmpdir_env_var",
    "sandbox_workspace_write.exclude_slash_tmp",
    "model_context_window",
    "model_auto_compact_token_limit",
    "ask_user",
];

/// Reads the `[clients]` table (every key optional).
pub(super) fn resolve(
    effective: &Tracked,
    unknown_keys: &mut Vec<UnknownKey>,
) -> Result<ClientsConfig, ConfigError> {
    let table = effective
        .field::<toml::Table>(&effective.table, "", PREFIX)?
        .unwrap_or_default();
    collect_unknown(effective, &table, PREFIX, KEYS, unknown_keys);
    let allow_client_config = effective
        .field::<String>(&table, PREFIX, "allow_client_config")?
        .map(|value| match value.as_str() {
            "listed" => Ok(ClientConfigAccess::Listed),
            "all" => Ok(ClientConfigAccess::All),
            _ => Err(effective.invalid_value(
                &join(PREFIX, "allow_client_config"),
                &format!("unknown value `{value}`, expected `listed` or `all`"),
            )),
        })
        .transpose()?
        .unwrap_or_default();
    let fs_roots: Vec<std::path::PathBuf> = effective
        .field(&table, PREFIX, "fs_roots")?
        .unwrap_or_default();
    if let Some(relative) = fs_roots.iter().find(|root| !root.is_absolute()) {
        return Err(effective.invalid_value(
            &join(PREFIX, "fs_roots"),
            &format!("`{}` is not an absolute path", relative.display()),
        ));
    }
    Ok(ClientsConfig {
        max_sandbox: effective.field(&table, PREFIX, "max_sandbox")?,
        allow_client_config,
        reveal_credentials: effective.field(&table, PREFIX, "reveal_credentials")?,
        fs_roots,
        allow_config_writes: effective.field(&table, PREFIX, "allow_config_writes")?,
        allow_mcp_server_calls: effective.field(&table, PREFIX, "allow_mcp_server_calls")?,
    })
}

/// Refuses `config` overrides from a client that set a key it may not set: with `Listed`,
/// any key outside [`CLIENT_CONFIG_KEYS`]; with `All`, only `clients.*` (the operator's own
/// table, which no client may change).
///
/// Every leaf is checked, whether written as a dotted key or as a nested object; an empty
/// object counts as a key (it would create that table). `null` sets nothing and is skipped.
pub fn refused_client_key(
    overrides: &BTreeMap<String, serde_json::Value>,
    access: ClientConfigAccess,
) -> Result<(), ConfigError> {
    let mut keys = Vec::new();
    for (key, value) in overrides {
        let Some(path) = split_dotted(key) else {
            return Err(ConfigError::InvalidOverride {
                key: key.clone(),
                reason: "empty key".to_owned(),
            });
        };
        collect_leaves(path, value, &mut keys);
    }
    for path in keys {
        let dotted = path.join(".");
        if path.first().is_some_and(|first| first == PREFIX) {
            return Err(ConfigError::RefusedClientKey {
                key: dotted,
                reason: "the `[clients]` table is the operator's and no client may set it"
                    .to_owned(),
            });
        }
        let listed = CLIENT_CONFIG_KEYS
            .iter()
            .any(|allowed| allowed.split('.').eq(path.iter().map(String::as_str)));
        if access == ClientConfigAccess::Listed && !listed {
            return Err(ConfigError::RefusedClientKey {
                key: dotted,
                reason: format!(
                    "a client may set only {} (the operator allows every key with `clients.allow_client_config = \"all\"`)",
                    CLIENT_CONFIG_KEYS
                        .iter()
                        .map(|key| format!("`{key}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
    }
    Ok(())
}

/// The dotted paths of the leaves of `value` at `path`.
fn collect_leaves(path: Vec<String>, value: &serde_json::Value, keys: &mut Vec<Vec<String>>) {
    match value {
        serde_json::Value::Null => {}
        serde_json::Value::Object(object) if !object.is_empty() => {
            for (key, inner) in object {
                let mut inner_path = path.clone();
                inner_path.push(key.clone());
                collect_leaves(inner_path, inner, keys);
            }
        }
        _ => keys.push(path),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn overrides(value: serde_json::Value) -> BTreeMap<String, serde_json::Value> {
        serde_json::from_value(value).unwrap()
    }

    fn refused(value: serde_json::Value, access: ClientConfigAccess) -> Option<String> {
        match refused_client_key(&overrides(value), access) {
            Ok(()) => None,
            Err(ConfigError::RefusedClientKey { key, .. }) => Some(key),
            Err(other) => panic!("unexpected error: {other}"),
        }
    }

    #[test]
    fn every_listed_key_is_accepted_dotted_or_nested() {
        for key in CLIENT_CONFIG_KEYS {
            let dotted = json!({ *key: "x" });
            assert_eq!(refused(dotted, ClientConfigAccess::Listed), None, "{key}");
        }
        let nested = json!({"sandbox_workspace_write": {"network_access": true, "writable_roots": ["a"]}, "model": null});
        assert_eq!(refused(nested, ClientConfigAccess::Listed), None);
    }

    #[test]
    fn anything_else_is_refused_by_name_however_it_is_written() {
        for (value, key) in [
            (
                json!({"model_providers.x.base_url": "http://evil"}),
                "model_providers.x.base_url",
            ),
            (
                json!({"model_providers": {"openai": {"env_key": "HOME"}}}),
                "model_providers.openai.env_key",
            ),
            (json!({"mcp_servers": {"x": {}}}), "mcp_servers.x"),
            (
                json!({"sandbox_workspace_write": 1}),
                "sandbox_workspace_write",
            ),
            (
                json!({"profiles.p.model_providers.x.base_url": "u"}),
                "profiles.p.model_providers.x.base_url",
            ),
            (json!({"modle": "m"}), "modle"),
            (json!({"model.inner": "m"}), "model.inner"),
            (json!({"history": {"url": "u"}}), "history.url"),
            (
                json!({"shell_environment_policy": {}}),
                "shell_environment_policy",
            ),
        ] {
            assert_eq!(
                refused(value.clone(), ClientConfigAccess::Listed).as_deref(),
                Some(key),
                "{value}"
            );
        }
    }

    #[test]
    fn all_allows_everything_but_the_clients_table() {
        let provider = json!({"model_providers.x.base_url": "http://elsewhere"});
        assert_eq!(refused(provider, ClientConfigAccess::All), None);
        for value in [
            json!({"clients.max_sandbox": "danger-full-access"}),
            json!({"clients": {"reveal_credentials": true}}),
        ] {
            assert!(refused(value, ClientConfigAccess::All).is_some());
        }
    }

    #[test]
    fn the_refusal_names_the_key_and_the_setting() {
        let error = refused_client_key(
            &overrides(json!({"model_providers.x.base_url": "http://evil"})),
            ClientConfigAccess::Listed,
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("config key `model_providers.x.base_url` cannot be set by a client"),
            "{error}"
        );
        assert!(error.contains("clients.allow_client_config"), "{error}");
    }
}
