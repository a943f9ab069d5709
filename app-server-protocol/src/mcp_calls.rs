//! A client calling a thread's configured MCP servers directly: `mcpServer/tool/call` and
//! `mcpServer/resource/read`.
//!
//! The servers are the ones the thread runs for its agent (`[mcp_servers]`); results are cut
//! to `mcp_tool_output_max_bytes` as the model's are. A network listener serves neither
//! method unless the operator enables them (`clients.allow_mcp_server_calls`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `mcpServer/tool/call`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct McpServerToolCallParams {
    /// A loaded thread of the caller whose server to call.
    pub thread_id: String,
    /// The server's name in `[mcp_servers]`.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The tool's arguments: a JSON object, or omitted.
    #[serde(default)]
    pub arguments: Option<serde_json::Value>,
    /// Accepted for compatibility; not forwarded to the server.
    #[serde(default, rename = "_meta")]
    #[ts(rename = "_meta")]
    pub meta: Option<serde_json::Value>,
}

/// Result of `mcpServer/tool/call`: the server's `CallToolResult`, cut to
/// `mcp_tool_output_max_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerToolCallResponse {
    /// The content blocks, as the server sent them.
    pub content: Vec<serde_json::Value>,
    /// The structured result, when the server sent one.
    pub structured_content: Option<serde_json::Value>,
    /// Whether the server reports the call as failed.
    pub is_error: Option<bool>,
    /// The result's `_meta`, when the server sent one.
    #[serde(rename = "_meta")]
    #[ts(rename = "_meta")]
    pub meta: Option<serde_json::Value>,
}

/// Parameters of `mcpServer/resource/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct McpResourceReadParams {
    /// A loaded thread of the caller whose server to read from; omitted, the most recently
    /// started of the caller's loaded threads.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// The server's name in `[mcp_servers]`.
    pub server: String,
    /// The resource's URI.
    pub uri: String,
    /// Accepted for compatibility; not forwarded to the server.
    #[serde(default, rename = "_meta")]
    #[ts(rename = "_meta")]
    pub meta: Option<serde_json::Value>,
}

/// Result of `mcpServer/resource/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpResourceReadResponse {
    /// The resource's contents as the server sent them (`{uri, mimeType?, text}` or
    /// `{uri, mimeType?, blob}`), cut to `mcp_tool_output_max_bytes`: a text cut short ends
    /// with a note saying how much was cut, and a blob that does not fit is replaced by a
    /// text saying so.
    pub contents: Vec<serde_json::Value>,
    /// Always `null`: Tandem scopes no resource to an app.
    pub origin_call_id: Option<String>,
}
