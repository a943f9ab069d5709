//! The JSON-RPC "lite" envelope: JSON-RPC 2.0 shapes without the `jsonrpc` field.
//!
//! The server never writes `"jsonrpc"`; incoming messages that carry it are accepted because
//! unknown fields are ignored everywhere.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Identifier of a request: a string or an integer, echoed back with its original JSON type.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, TS,
)]
#[serde(untagged)]
pub enum RequestId {
    /// A string id, such as `"req-abc"`.
    String(String),
    /// An integer id; server-initiated requests use integers counting from 0 per connection.
    Integer(i64),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::String(id) => write!(formatter, "{id:?}"),
            RequestId::Integer(id) => write!(formatter, "{id}"),
        }
    }
}

/// A request whose method has not been decoded yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(rename = "JSONRPCRequest")]
#[schemars(rename = "JSONRPCRequest")]
pub struct JsonRpcRequest {
    /// The request id, echoed in the response.
    pub id: RequestId,
    /// The method name, such as `thread/start`.
    pub method: String,
    /// Method parameters; required (possibly `{}`) for methods whose params are a struct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub params: Option<serde_json::Value>,
}

/// A notification: a message without an id that gets no reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(rename = "JSONRPCNotification")]
#[schemars(rename = "JSONRPCNotification")]
pub struct JsonRpcNotification {
    /// The notification method, such as `turn/started`.
    pub method: String,
    /// Notification parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub params: Option<serde_json::Value>,
}

/// A successful reply to a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(rename = "JSONRPCResponse")]
#[schemars(rename = "JSONRPCResponse")]
pub struct JsonRpcResponse {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The method's result.
    pub result: serde_json::Value,
}

/// A failed reply to a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(rename = "JSONRPCError")]
#[schemars(rename = "JSONRPCError")]
pub struct JsonRpcError {
    /// What went wrong.
    pub error: JsonRpcErrorBody,
    /// The id of the request this answers.
    pub id: RequestId,
}

/// The `error` member of a failed reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(rename = "JSONRPCErrorError")]
#[schemars(rename = "JSONRPCErrorError")]
pub struct JsonRpcErrorBody {
    /// Error code; `-32600` for every request-level error, `-32603` for internal failures,
    /// `-32001` when the server is overloaded.
    pub code: i64,
    /// Human-readable description of the error.
    pub message: String,
    /// Optional structured detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub data: Option<serde_json::Value>,
}

/// Any message on the wire, in either direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(untagged)]
#[ts(rename = "JSONRPCMessage")]
#[schemars(rename = "JSONRPCMessage")]
pub enum JsonRpcMessage {
    /// A request (has `id` and `method`).
    Request(JsonRpcRequest),
    /// A notification (has `method`, no `id`).
    Notification(JsonRpcNotification),
    /// A successful response (has `id` and `result`).
    Response(JsonRpcResponse),
    /// An error response (has `id` and `error`).
    Error(JsonRpcError),
}

/// Error codes used on the wire.
pub mod error_codes {
    /// A line that is not JSON; the app-server logs and skips it, the MCP adapter answers it.
    pub const PARSE_ERROR: i64 = -32700;
    /// Every request-level error (as the reference server does): not initialized, unknown
    /// method, undecodable params, business errors.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Never sent by the app-server (unknown methods get [`INVALID_REQUEST`]); the MCP adapter
    /// uses it for unknown methods.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Never sent by the app-server (undecodable params get [`INVALID_REQUEST`]); the MCP
    /// adapter uses it for bad arguments.
    pub const INVALID_PARAMS: i64 = -32602;
    /// An internal failure while executing a request.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The request queue is saturated; retry later.
    pub const OVERLOADED: i64 = -32001;
}
