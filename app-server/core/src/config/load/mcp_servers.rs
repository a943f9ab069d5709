//! `[mcp_servers.NAME]`: the MCP servers whose tools the agent is offered (see
//! `docs/mcp-servers.md`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use tandem_mcp_client::{ServerConfig, ServerTransport};

use crate::config::ConfigError;
use crate::config::load::layer::{Tracked, join};
use crate::config::load::resolve::{UnknownKey, collect_unknown};

const PREFIX: &str = "mcp_servers";

const KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "env_vars",
    "cwd",
    "url",
    "bearer_token_env_var",
    "http_headers",
    "enabled",
    "startup_timeout_sec",
    "tool_timeout_sec",
    "enabled_tools",
    "disabled_tools",
    "trusted",
    "trusted_tools",
];

/// Default `startup_timeout_sec`.
const DEFAULT_STARTUP_TIMEOUT_SEC: f64 = 10.0;
/// Default `tool_timeout_sec`.
const DEFAULT_TOOL_TIMEOUT_SEC: f64 = 60.0;
/// Default `mcp_tool_output_max_bytes`.
const DEFAULT_OUTPUT_MAX_BYTES: usize = 1024 * 1024;

/// `mcp_tool_output_max_bytes` (top level): at least one byte.
pub(super) fn output_max_bytes(effective: &Tracked) -> Result<usize, ConfigError> {
    match effective.field::<usize>(&effective.table, "", "mcp_tool_output_max_bytes")? {
        None => Ok(DEFAULT_OUTPUT_MAX_BYTES),
        Some(0) => Err(effective.invalid_value("mcp_tool_output_max_bytes", "must be at least 1")),
        Some(bytes) => Ok(bytes),
    }
}

/// Reads every `[mcp_servers.NAME]` table, in name order.
pub(super) fn resolve(
    effective: &Tracked,
    unknown_keys: &mut Vec<UnknownKey>,
) -> Result<Vec<ServerConfig>, ConfigError> {
    let Some(tables) = effective.field::<toml::Table>(&effective.table, "", PREFIX)? else {
        return Ok(Vec::new());
    };
    let mut servers = Vec::new();
    for (name, value) in &tables {
        let prefix = join(PREFIX, name);
        let table: toml::Table = effective.typed(&prefix, value)?;
        collect_unknown(effective, &table, &prefix, KEYS, unknown_keys);
        if name.is_empty()
            || !name
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || "_-".contains(character))
        {
            return Err(effective.invalid_value(
                &prefix,
                "server names may only contain ASCII letters, digits, `_` and `-`",
            ));
        }
        let command: Option<String> = effective.field(&table, &prefix, "command")?;
        let url: Option<String> = effective.field(&table, &prefix, "url")?;
        let transport = match (command, url) {
            (Some(command), None) => ServerTransport::Stdio {
                command,
                args: effective
                    .field(&table, &prefix, "args")?
                    .unwrap_or_default(),
                env: effective
                    .field::<BTreeMap<String, String>>(&table, &prefix, "env")?
                    .unwrap_or_default(),
                env_vars: effective
                    .field(&table, &prefix, "env_vars")?
                    .unwrap_or_default(),
                cwd: effective.field::<PathBuf>(&table, &prefix, "cwd")?,
            },
            (None, Some(url)) => ServerTransport::Http {
                url,
                bearer_token_env_var: effective.field(&table, &prefix, "bearer_token_env_var")?,
                headers: effective
                    .field::<BTreeMap<String, String>>(&table, &prefix, "http_headers")?
                    .unwrap_or_default(),
            },
            (Some(_), Some(_)) => {
                return Err(effective.invalid_value(
                    &prefix,
                    "set either `command` (stdio) or `url` (streamable HTTP), not both",
                ));
            }
            (None, None) => {
                return Err(effective.invalid_value(
                    &prefix,
                    "missing `command` (stdio server) or `url` (streamable HTTP server)",
                ));
            }
        };
        servers.push(ServerConfig {
            name: name.clone(),
            transport,
            enabled: effective.field(&table, &prefix, "enabled")?.unwrap_or(true),
            startup_timeout: seconds(effective, &table, &prefix, "startup_timeout_sec")?
                .unwrap_or(Duration::from_secs_f64(DEFAULT_STARTUP_TIMEOUT_SEC)),
            tool_timeout: seconds(effective, &table, &prefix, "tool_timeout_sec")?
                .unwrap_or(Duration::from_secs_f64(DEFAULT_TOOL_TIMEOUT_SEC)),
            enabled_tools: effective.field(&table, &prefix, "enabled_tools")?,
            disabled_tools: effective
                .field(&table, &prefix, "disabled_tools")?
                .unwrap_or_default(),
            trusted: effective
                .field(&table, &prefix, "trusted")?
                .unwrap_or(false),
            trusted_tools: effective
                .field(&table, &prefix, "trusted_tools")?
                .unwrap_or_default(),
        });
    }
    Ok(servers)
}

/// A positive number of seconds (integer or fractional).
fn seconds(
    effective: &Tracked,
    table: &toml::Table,
    prefix: &str,
    key: &str,
) -> Result<Option<Duration>, ConfigError> {
    let Some(value) = effective.field::<f64>(table, prefix, key)? else {
        return Ok(None);
    };
    if !value.is_finite() || value <= 0.0 || value > 86_400.0 {
        return Err(effective.invalid_value(
            &join(prefix, key),
            "must be a number of seconds between 0 and 86400",
        ));
    }
    Ok(Some(Duration::from_secs_f64(value)))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use tandem_mcp_client::ServerTransport;

    use crate::config::{Config, ConfigError};

    fn load(text: &str) -> Result<Config, ConfigError> {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), text).unwrap();
        Config::load(Some(home.path().to_path_buf()), &[])
    }

    #[test]
    fn a_stdio_server_takes_env_and_env_vars() {
        let config = load(
            "[mcp_servers.gh]\ncommand = \"gh-mcp\"\nenv = { MODE = \"x\" }\nenv_vars = [\"GITHUB_TOKEN\"]\n",
        )
        .unwrap();
        let ServerTransport::Stdio { env, env_vars, .. } = &config.mcp_servers[0].transport else {
            panic!("not stdio");
        };
        assert_eq!(env.get("MODE").map(String::as_str), Some("x"));
        assert_eq!(env_vars, &["GITHUB_TOKEN".to_string()]);
    }

    #[test]
    fn the_output_cap_defaults_to_one_mebibyte_and_must_be_positive() {
        assert_eq!(load("").unwrap().mcp_tool_output_max_bytes, 1024 * 1024);
        assert_eq!(
            load("mcp_tool_output_max_bytes = 4096\n")
                .unwrap()
                .mcp_tool_output_max_bytes,
            4096
        );
        let error = load("mcp_tool_output_max_bytes = 0\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with("invalid value for `mcp_tool_output_max_bytes`: must be at least 1"),
            "{error}"
        );
    }
}
