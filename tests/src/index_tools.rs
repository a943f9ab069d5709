//! Calling the project index's MCP tools (`query_project`, `repo_index_refresh`) on a
//! `tandem mcp-server` over stdio, and reading their results.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test support: a malformed result must fail the test loudly"
)]

use serde_json::{Value, json};

use crate::mcp::McpStdio;

/// Calls `tool` with `arguments` as request `id` and returns the JSON-RPC `result`.
pub async fn call(server: &mut McpStdio, id: i64, tool: &str, arguments: Value) -> Value {
    let response = server
        .request(
            json!(id),
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        )
        .await;
    response["result"].clone()
}

/// Calls `tool` and returns its payload (see [`payload`]); the call must succeed.
pub async fn call_payload(server: &mut McpStdio, id: i64, tool: &str, arguments: Value) -> Value {
    payload(&call(server, id, tool, arguments).await)
}

/// Runs `query_project` with `arguments` and returns the paths it ranked (see [`paths`]).
pub async fn query_paths(server: &mut McpStdio, id: i64, arguments: Value) -> Vec<String> {
    paths(&call_payload(server, id, "query_project", arguments).await)
}

/// Calls `tool` and returns its error message (see [`error_text`]); the call must fail.
pub async fn call_error(server: &mut McpStdio, id: i64, tool: &str, arguments: Value) -> String {
    error_text(&call(server, id, tool, arguments).await)
}

/// The payload of a successful result, after checking that `content[0].text` is the same
/// object as `structuredContent` and that it names no thread.
pub fn payload(result: &Value) -> Value {
    assert_eq!(result["isError"], false, "{result}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);
    assert!(text.get("threadId").is_none());
    text
}

/// The message of a failed result.
pub fn error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

/// The `path` of every result of a `query_project` payload, in rank order.
pub fn paths(payload: &Value) -> Vec<String> {
    payload["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| result["path"].as_str().unwrap().to_string())
        .collect()
}
