//! Conformance fixtures of the Tasks extension (cargo feature `conformance-fixtures`): the
//! tools the suite's `tasks-*` scenarios call. `greet` answers at once; `slow_compute` sleeps
//! `seconds` (cancellable); `failing_job` reports a tool error; `protocol_error_job` ends in a
//! JSON-RPC error; `confirm_delete` asks one question and `multi_input` two at once through
//! its task (`crate::mcp::task_calls`); `test_tool_with_task` asks for a name through
//! `input_required` (`crate::mcp::fixtures_mrtr`) and runs its last round as a task.
//! `failing_job` and `test_tool_with_task` need a task. Nothing here is part of the product.

use std::time::Duration;

use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::mcp::session::McpSession;
use crate::rpc_error;

/// Longest `slow_compute` sleep, in seconds.
const MAX_SECONDS: u64 = 600;

/// The fixture tools for `tools/list`.
pub fn tools() -> Vec<Value> {
    let tool = |name: &str, description: &str, properties: Value, support: &str| {
        json!({
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": properties},
            "execution": {"taskSupport": support},
        })
    };
    vec![
        tool(
            "greet",
            "Returns Hello, {name}!",
            json!({"name": {"type": "string"}}),
            "forbidden",
        ),
        tool(
            "slow_compute",
            "Sleeps `seconds`, then answers",
            json!({"seconds": {"type": "number"}, "label": {"type": "string"}}),
            "optional",
        ),
        tool("failing_job", "Reports a tool error", json!({}), "required"),
        tool(
            "protocol_error_job",
            "Ends in a JSON-RPC error",
            json!({}),
            "optional",
        ),
        tool(
            "confirm_delete",
            "Asks to confirm, through its task",
            json!({"filename": {"type": "string"}}),
            "optional",
        ),
        tool(
            "multi_input",
            "Asks two questions at once, through its task",
            json!({}),
            "optional",
        ),
        tool(
            "test_tool_with_task",
            "Asks for a name, then runs as a task",
            json!({}),
            "required",
        ),
    ]
}

fn text(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn confirm(message: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
    }})
}

impl McpSession {
    /// Serves task fixture `name`: `None` for other names; `Some(None)` when cancelled.
    pub(crate) async fn task_fixture(
        &self,
        name: &str,
        params: &Value,
        cancel: &CancellationToken,
    ) -> Option<Option<Result<Value, JsonRpcErrorBody>>> {
        let argument = |key: &str| params.pointer(&format!("/arguments/{key}"));
        let outcome = match name {
            "greet" => Ok(text(format!(
                "Hello, {}!",
                argument("name").and_then(Value::as_str).unwrap_or("World")
            ))),
            "slow_compute" => {
                let seconds = argument("seconds")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0)
                    .clamp(0.0, MAX_SECONDS as f64);
                let label = argument("label").and_then(Value::as_str).unwrap_or("");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {}
                    () = cancel.cancelled() => return Some(None),
                }
                Ok(text(format!("computed {label} in {seconds}s")))
            }
            "failing_job" => Ok(json!({
                "content": [{"type": "text", "text": "failing_job failed, as it always does"}],
                "isError": true,
            })),
            "protocol_error_job" => Err(rpc_error::internal_error(
                "protocol_error_job ended in an internal error, as it always does",
            )),
            "confirm_delete" => {
                let filename = argument("filename").and_then(Value::as_str).unwrap_or("");
                let asked = confirm(&format!("Delete {filename}?"));
                match self.shared.ask_task(asked, cancel).await {
                    None => Err(rpc_error::invalid_params("confirm_delete runs as a task")),
                    Some(Err(_)) if cancel.is_cancelled() => return Some(None),
                    Some(Err(reason)) => Err(rpc_error::internal_error(reason)),
                    Some(Ok(answer)) => {
                        let confirmed = answer.pointer("/content/confirm") == Some(&json!(true));
                        Ok(text(if confirmed {
                            format!("deleted {filename}")
                        } else {
                            format!("kept {filename}")
                        }))
                    }
                }
            }
            "multi_input" => {
                let (first, second) = tokio::join!(
                    self.shared.ask_task(confirm("First question"), cancel),
                    self.shared.ask_task(confirm("Second question"), cancel),
                );
                match (first, second) {
                    (Some(Ok(_)), Some(Ok(_))) => Ok(text("both answers arrived".to_string())),
                    (None, _) | (_, None) => {
                        Err(rpc_error::invalid_params("multi_input runs as a task"))
                    }
                    _ if cancel.is_cancelled() => return Some(None),
                    _ => Err(rpc_error::internal_error("a question went unanswered")),
                }
            }
            _ => return None,
        };
        Some(Some(outcome))
    }
}
