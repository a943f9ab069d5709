//! MCP servers as tools of the agent: their status (`mcpServerStatus/list`,
//! `mcpServer/startupStatus/updated`), their questions for the user
//! (`mcpServer/elicitation/request`) and the results of calls to them (the `mcpToolCall` item).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Lifecycle status of an `mcpToolCall` item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum McpToolCallStatus {
    /// Waiting for approval or for the server's answer.
    InProgress,
    /// The server answered with a result (which may itself report an error).
    Completed,
    /// No result: declined, timed out, the server failed or the connection was lost.
    Failed,
}

/// What an MCP server returned for a call (its `CallToolResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpToolCallResult {
    /// The content blocks, as the server sent them.
    pub content: Vec<serde_json::Value>,
    /// The structured result, when the server sent one.
    #[serde(default)]
    pub structured_content: Option<serde_json::Value>,
    /// The result's `_meta`, when the server sent one.
    #[serde(default, rename = "_meta")]
    #[ts(rename = "_meta")]
    pub meta: Option<serde_json::Value>,
}

/// Why an MCP tool call produced no result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpToolCallError {
    /// What went wrong (also what the model is told).
    pub message: String,
}

/// Parameters of `mcpServerStatus/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ListMcpServerStatusParams {
    /// Opaque cursor from a previous page's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub cursor: Option<String>,
    /// Page size (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// Tandem extension: the loaded thread whose servers to report (each thread runs its own
    /// servers). Without it, the most recently started loaded thread's servers, or the
    /// configured servers with no tools when no thread is loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub thread_id: Option<String>,
}

/// Result of `mcpServerStatus/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ListMcpServerStatusResponse {
    /// One entry per enabled configured server, in configuration order.
    pub data: Vec<McpServerStatus>,
    /// Cursor of the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// One MCP server as the agent sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerStatus {
    /// The server's name under `[mcp_servers]`.
    pub name: String,
    /// Its tools (after `enabled_tools`/`disabled_tools`) by tool name, each as the server's
    /// `tools/list` entry; empty until the server is ready.
    pub tools: BTreeMap<String, serde_json::Value>,
    /// Its resources; Tandem does not read resources, so always empty.
    pub resources: Vec<serde_json::Value>,
    /// Its resource templates; always empty in Tandem.
    pub resource_templates: Vec<serde_json::Value>,
    /// How the server authenticates.
    pub auth_status: McpAuthStatus,
    /// Tandem extension: where its startup stands; `null` when no thread runs it yet.
    pub startup_status: Option<McpServerStartupState>,
    /// Tandem extension: the last startup or connection error, if any.
    pub error: Option<String>,
}

/// How an MCP server authenticates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum McpAuthStatus {
    /// No authentication concept (stdio servers, HTTP servers without a token).
    Unsupported,
    /// OAuth is required but no login was done (not used by Tandem).
    NotLoggedIn,
    /// A bearer token from `bearer_token_env_var` is sent.
    BearerToken,
    /// OAuth (not used by Tandem).
    OAuth,
}

/// Where an MCP server's startup stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum McpServerStartupState {
    /// Being spawned or connected and initialized.
    Starting,
    /// Initialized and its tools listed.
    Ready,
    /// The start failed or the connection was lost; the next call starts it again.
    Failed,
    /// The start was abandoned (the thread was unloaded or the server shut down).
    Cancelled,
}

/// Why a startup failed, when it is a known reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum McpServerStartupFailureReason {
    /// The server wants a new login (not used by Tandem).
    ReauthenticationRequired,
}

/// Parameters of `mcpServer/startupStatus/updated`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerStatusUpdatedNotification {
    /// The thread whose server this is.
    pub thread_id: Option<String>,
    /// The server's name under `[mcp_servers]`.
    pub name: String,
    /// The new state.
    pub status: McpServerStartupState,
    /// Why it failed, for `failed`.
    pub error: Option<String>,
    /// A known failure reason; always `null` in Tandem.
    pub failure_reason: Option<McpServerStartupFailureReason>,
}

/// Parameters of `mcpServer/elicitation/request`: an MCP server asks the user something in
/// the middle of a tool call (or Tandem asks whether an MCP tool may run).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerElicitationRequestParams {
    /// The thread of the call.
    pub thread_id: String,
    /// The turn of the call, when one is running.
    #[serde(default)]
    pub turn_id: Option<String>,
    /// The server's name under `[mcp_servers]`.
    pub server_name: String,
    /// The question.
    #[serde(flatten)]
    pub request: McpServerElicitationRequest,
}

/// The question of an elicitation (tagged by `mode`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "mode", rename_all_fields = "camelCase")]
pub enum McpServerElicitationRequest {
    /// A form: the answer's `content` is an object conforming to `requestedSchema`.
    #[serde(rename = "form")]
    Form {
        /// The server's `_meta`; for Tandem's own approval questions
        /// `{"tandem/approvalKind": "mcpToolCall", "tool": …, "arguments": …}`.
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        #[ts(rename = "_meta", optional)]
        meta: Option<serde_json::Value>,
        /// What the user is asked.
        message: String,
        /// The restricted JSON Schema (`{type: "object", properties, required?}`) of the
        /// expected answer; no properties for a plain accept/decline question.
        requested_schema: serde_json::Value,
    },
    /// Send the user to a URL; the answer carries no content.
    #[serde(rename = "url")]
    Url {
        /// The server's `_meta`.
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        #[ts(rename = "_meta", optional)]
        meta: Option<serde_json::Value>,
        /// Why the user should go there.
        message: String,
        /// Where to go.
        url: String,
        /// The server's id of this elicitation.
        elicitation_id: String,
    },
}

/// Result of `mcpServer/elicitation/request`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerElicitationRequestResponse {
    /// What the user chose.
    pub action: McpServerElicitationAction,
    /// The form's data, for `accept`.
    #[serde(default)]
    pub content: Option<serde_json::Value>,
    /// `_meta` passed back to the server.
    #[serde(default, rename = "_meta")]
    #[ts(rename = "_meta")]
    pub meta: Option<serde_json::Value>,
}

/// The user's choice on an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum McpServerElicitationAction {
    /// Submitted.
    Accept,
    /// Refused.
    Decline,
    /// Dismissed.
    Cancel,
}
