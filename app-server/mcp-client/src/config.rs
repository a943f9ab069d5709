//! One configured MCP server, as resolved from `[mcp_servers.NAME]` by the application.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// How to reach a server and how to treat its tools.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The name under `[mcp_servers]`; part of every tool name offered to the model.
    pub name: String,
    /// How to connect.
    pub transport: ServerTransport,
    /// Whether the server is started at all.
    pub enabled: bool,
    /// How long the start (spawn or connect, `initialize`, `tools/list`) may take.
    pub startup_timeout: Duration,
    /// How long one tool call may take.
    pub tool_timeout: Duration,
    /// When set, only these tools are offered.
    pub enabled_tools: Option<Vec<String>>,
    /// Tools never offered (applied after `enabled_tools`).
    pub disabled_tools: Vec<String>,
    /// Every tool of the server runs without asking the user.
    pub trusted: bool,
    /// These tools run without asking the user.
    pub trusted_tools: Vec<String>,
}

/// The two transports.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerTransport {
    /// A child process speaking JSONL on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for the server, over the minimal environment
        /// ([`crate::MINIMAL_ENVIRONMENT`]); nothing else of Tandem's environment is passed.
        env: BTreeMap<String, String>,
        /// Names of variables passed from Tandem's own environment as they are (when set),
        /// whatever their names: how a server gets the token it needs.
        env_vars: Vec<String>,
        /// Working directory; the owner's cwd when `None`.
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The MCP endpoint URL.
        url: String,
        /// The environment variable holding the token sent as `Authorization: Bearer …`;
        /// read at each start, so a missing variable fails that start with a clear message.
        bearer_token_env_var: Option<String>,
        /// Extra headers on every request.
        headers: BTreeMap<String, String>,
    },
}

impl ServerConfig {
    /// Whether `tool` passes `enabled_tools` and `disabled_tools`.
    pub fn offers(&self, tool: &str) -> bool {
        let enabled = self
            .enabled_tools
            .as_ref()
            .is_none_or(|names| names.iter().any(|name| name == tool));
        enabled && !self.disabled_tools.iter().any(|name| name == tool)
    }

    /// Whether calls to `tool` skip the approval question.
    pub fn is_trusted(&self, tool: &str) -> bool {
        self.trusted || self.trusted_tools.iter().any(|name| name == tool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ServerConfig {
        ServerConfig {
            name: "srv".into(),
            transport: ServerTransport::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                bearer_token_env_var: None,
                headers: BTreeMap::new(),
            },
            enabled: true,
            startup_timeout: Duration::from_secs(1),
            tool_timeout: Duration::from_secs(1),
            enabled_tools: None,
            disabled_tools: Vec::new(),
            trusted: false,
            trusted_tools: Vec::new(),
        }
    }

    #[test]
    fn enabled_and_disabled_tools_filter_in_that_order() {
        let mut server = config();
        assert!(server.offers("anything"));
        server.enabled_tools = Some(vec!["a".into(), "b".into()]);
        server.disabled_tools = vec!["b".into()];
        assert!(server.offers("a"));
        assert!(!server.offers("b"));
        assert!(!server.offers("c"));
    }

    #[test]
    fn trust_is_per_server_or_per_tool() {
        let mut server = config();
        assert!(!server.is_trusted("a"));
        server.trusted_tools = vec!["a".into()];
        assert!(server.is_trusted("a"));
        assert!(!server.is_trusted("b"));
        server.trusted = true;
        assert!(server.is_trusted("b"));
    }
}
