//! MCP wire basics: JSON-RPC 2.0 envelopes, protocol versions and the
//! `initialize` result.
//!
//! The adapter keeps its own small serde_json shapes instead of a full MCP type crate: it
//! speaks a handful of methods, passes engine notifications through untouched, and must accept
//! both the spec's and Codex's answer shapes, so typed models would add little but churn.

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use serde_json::{Value, json};

/// Protocol versions this server speaks, newest first.
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// Name reported in `serverInfo`.
pub const SERVER_NAME: &str = "tandem-mcp-server";

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
pub fn response(id: &RequestId, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// `{"jsonrpc":"2.0","id":…,"error":{code,message[,data]}}`; `id` is `null` when unknown.
pub fn error_response(id: Option<&RequestId>, error: &JsonRpcErrorBody) -> Value {
    let mut response = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": error.code, "message": error.message},
    });
    if let Some(data) = &error.data {
        response["error"]["data"] = data.clone();
    }
    response
}

/// `{"jsonrpc":"2.0","method":…,"params":…}`.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`.
pub fn request(id: &RequestId, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The version to answer for a client asking `requested`: the same when supported, else the
/// newest this server speaks (the client then decides whether it can go on).
pub fn negotiate_version(requested: &str) -> &'static str {
    SUPPORTED_VERSIONS
        .iter()
        .find(|version| **version == requested)
        .copied()
        .unwrap_or(SUPPORTED_VERSIONS[0])
}

/// Whether `version` is one this server speaks.
pub fn is_supported_version(version: &str) -> bool {
    SUPPORTED_VERSIONS.contains(&version)
}

/// The `initialize` result for `version`.
pub fn initialize_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {
            "tools": {"listChanged": false},
            "logging": {},
        },
        "serverInfo": {
            "name": SERVER_NAME,
            "title": "Tandem",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "instructions": "Tandem runs a coding agent. Call `codex` with a prompt to start a conversation and `codex-reply` with its threadId to continue it. Progress streams as `codex/event` notifications; command and file-change approvals arrive as elicitation requests.",
    })
}

/// Log levels of `logging/setLevel`, least severe first (RFC 5424 order).
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The rank of a log level name, or `None` when unknown.
pub fn log_level_rank(level: &str) -> Option<usize> {
    LOG_LEVELS.iter().position(|known| *known == level)
}

/// What the client declared it can do, as far as this server cares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientCapabilities {
    /// Whether the client answers `elicitation/create` in form mode.
    pub form_elicitation: bool,
    /// Whether the client declares the Tasks extension (`extensions` holds
    /// `io.modelcontextprotocol/tasks`; only 2026-07-28 requests use it).
    pub tasks: bool,
}

impl ClientCapabilities {
    /// Reads `initialize.params.capabilities`. An `elicitation` object without modes means
    /// form mode only (2025-06-18); with modes, `form` must be listed.
    pub fn from_params(params: &Value) -> Self {
        let form_elicitation = match params.pointer("/capabilities/elicitation") {
            Some(Value::Object(modes)) => {
                modes.is_empty() || modes.contains_key("form") || !modes.contains_key("url")
            }
            _ => false,
        };
        let tasks = params
            .pointer("/capabilities/extensions")
            .and_then(Value::as_object)
            .is_some_and(|extensions| extensions.contains_key(crate::mcp::tasks::EXTENSION));
        Self {
            form_elicitation,
            tasks,
        }
    }
}

/// Longest `clientInfo.name`, `clientInfo.title` and `clientInfo.version` accepted by
/// `initialize`, in bytes.
pub const MAX_CLIENT_INFO_FIELD_BYTES: usize = 256;
/// Largest `clientInfo` object accepted by `initialize` (its JSON text), in bytes.
pub const MAX_CLIENT_INFO_BYTES: usize = 4096;

/// Refuses an `initialize` whose `clientInfo` is over the caps: its name and version are
/// kept for the session's lifetime (thread originator, user agent) and, in a cluster, stored
/// in Redis with the session.
pub fn check_client_info(params: &Value) -> Result<(), JsonRpcErrorBody> {
    let Some(client_info) = params.get("clientInfo") else {
        return Ok(());
    };
    for field in ["name", "title", "version"] {
        if let Some(text) = client_info.get(field).and_then(Value::as_str)
            && text.len() > MAX_CLIENT_INFO_FIELD_BYTES
        {
            return Err(crate::rpc_error::invalid_params(format!(
                "initialize: clientInfo.{field} is {} bytes; at most {MAX_CLIENT_INFO_FIELD_BYTES} are accepted",
                text.len()
            )));
        }
    }
    let size = client_info.to_string().len();
    if size > MAX_CLIENT_INFO_BYTES {
        return Err(crate::rpc_error::invalid_params(format!(
            "initialize: clientInfo is {size} bytes of JSON; at most {MAX_CLIENT_INFO_BYTES} are accepted"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_versions_are_echoed_and_others_get_the_newest() {
        assert_eq!(negotiate_version("2025-03-26"), "2025-03-26");
        assert_eq!(negotiate_version("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_version("2025-11-25"), "2025-11-25");
        assert_eq!(negotiate_version("2024-11-05"), "2025-11-25");
        assert_eq!(negotiate_version("2026-07-28"), "2025-11-25");
    }

    #[test]
    fn elicitation_capability_needs_form_mode() {
        let caps = |value: Value| ClientCapabilities::from_params(&json!({"capabilities": value}));
        assert!(caps(json!({"elicitation": {}})).form_elicitation);
        assert!(caps(json!({"elicitation": {"form": {}}})).form_elicitation);
        assert!(caps(json!({"elicitation": {"form": {}, "url": {}}})).form_elicitation);
        assert!(!caps(json!({"elicitation": {"url": {}}})).form_elicitation);
        assert!(!caps(json!({"sampling": {}})).form_elicitation);
        assert!(!ClientCapabilities::from_params(&json!({})).form_elicitation);
    }

    #[test]
    fn client_info_over_the_caps_is_refused() {
        let long = "n".repeat(MAX_CLIENT_INFO_FIELD_BYTES + 1);
        let at_cap = "n".repeat(MAX_CLIENT_INFO_FIELD_BYTES);
        let check = |client_info: Value| check_client_info(&json!({"clientInfo": client_info}));
        assert!(check(json!({"name": at_cap, "version": at_cap})).is_ok());
        assert!(check_client_info(&json!({})).is_ok());
        let refused = check(json!({"name": long, "version": "1"})).unwrap_err();
        assert_eq!(refused.code, -32602);
        assert!(
            refused.message.contains("clientInfo.name"),
            "{}",
            refused.message
        );
        assert!(check(json!({"name": "n", "version": long})).is_err());
        assert!(check(json!({"name": "n", "title": long})).is_err());
        let icons = vec![json!({"src": "x".repeat(200)}); 30];
        let refused = check(json!({"name": "n", "icons": icons})).unwrap_err();
        assert!(
            refused.message.contains("clientInfo is"),
            "{}",
            refused.message
        );
    }

    #[test]
    fn envelopes_carry_jsonrpc_2() {
        let id = RequestId::Integer(4);
        assert_eq!(
            error_response(
                Some(&id),
                &crate::rpc_error::method_not_found("server/discover")
            ),
            json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "method not found: server/discover"}})
        );
        assert_eq!(
            error_response(None, &crate::rpc_error::parse_error("parse error")),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}})
        );
        assert_eq!(log_level_rank("warning"), Some(3));
        assert_eq!(log_level_rank("loud"), None);
    }
}
