//! A client calling a loaded thread's MCP servers directly: `mcpServer/tool/call` and
//! `mcpServer/resource/read`.
//!
//! The operator's policy decides first (`clients.allow_mcp_server_calls`, off by default on
//! a network listener), whichever front end serves the methods; the thread must be one of the
//! caller's; results are cut to `mcp_tool_output_max_bytes` before the client sees them, as
//! the model's are.

use std::sync::Arc;

use app_server_protocol::mcp_calls::{
    McpResourceReadParams, McpResourceReadResponse, McpServerToolCallParams,
    McpServerToolCallResponse,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::audit::AuditEvent;
use crate::engine::thread::LoadedThread;
use crate::engine::{Engine, EngineError};

impl Engine {
    /// `mcpServer/tool/call`.
    pub async fn call_mcp_tool(
        &self,
        params: McpServerToolCallParams,
    ) -> Result<McpServerToolCallResponse, EngineError> {
        self.check_mcp_server_calls()?;
        let thread = self.mcp_thread(Some(&params.thread_id))?;
        let arguments = match params.arguments {
            None | Some(Value::Null) => None,
            Some(Value::Object(arguments)) => Some(arguments),
            Some(_) => {
                return Err(EngineError::InvalidRequest(
                    "`arguments` must be a JSON object".to_owned(),
                ));
            }
        };
        let cancel = self.inner.shutdown.child_token();
        let result = thread
            .mcp
            .call(&params.server, &params.tool, arguments, &cancel)
            .await
            .map_err(|error| EngineError::InvalidRequest(error.to_string()))?
            .truncated(self.config().mcp_tool_output_max_bytes);
        Ok(McpServerToolCallResponse {
            content: result.content,
            structured_content: result.structured_content,
            is_error: Some(result.is_error),
            meta: result.meta,
        })
    }

    /// `mcpServer/resource/read`.
    pub async fn read_mcp_resource(
        &self,
        params: McpResourceReadParams,
    ) -> Result<McpResourceReadResponse, EngineError> {
        self.check_mcp_server_calls()?;
        let thread = self.mcp_thread(params.thread_id.as_deref())?;
        let cancel: CancellationToken = self.inner.shutdown.child_token();
        let contents = thread
            .mcp
            .read_resource(&params.server, &params.uri, &cancel)
            .await
            .map_err(|error| EngineError::InvalidRequest(error.to_string()))?;
        Ok(McpResourceReadResponse {
            contents: cap_contents(contents, self.config().mcp_tool_output_max_bytes),
            origin_call_id: None,
        })
    }

    fn check_mcp_server_calls(&self) -> Result<(), EngineError> {
        if self.client_policy().allows_mcp_server_calls() {
            return Ok(());
        }
        let reason = "calling MCP servers directly is off for clients of this server (the operator enables it with `clients.allow_mcp_server_calls = true`)";
        self.audit(&AuditEvent::Refused {
            setting: "clients.allow_mcp_server_calls".into(),
            reason: reason.to_owned(),
        });
        Err(EngineError::InvalidRequest(reason.to_owned()))
    }

    /// The caller's loaded thread `thread_id`, or its most recently started one.
    fn mcp_thread(&self, thread_id: Option<&str>) -> Result<Arc<LoadedThread>, EngineError> {
        match thread_id {
            Some(thread_id) => self.thread(thread_id).ok_or_else(|| {
                EngineError::InvalidRequest(format!("thread not loaded: {thread_id}"))
            }),
            None => self.inner.threads.latest(self.principal()).ok_or_else(|| {
                EngineError::InvalidRequest(
                    "no loaded thread: start or resume a thread whose MCP servers to use"
                        .to_owned(),
                )
            }),
        }
    }
}

/// `contents` cut to `max_bytes` of JSON: entries are kept in order while they fit; the
/// first that does not is a text cut short with a note (a blob is replaced by a note), and
/// the rest are dropped with a note saying how many.
fn cap_contents(contents: Vec<Value>, max_bytes: usize) -> Vec<Value> {
    let mut kept = Vec::new();
    let mut used = 0_usize;
    let total = contents.len();
    for (index, content) in contents.into_iter().enumerate() {
        let size = content.to_string().len();
        if used + size <= max_bytes {
            used += size;
            kept.push(content);
            continue;
        }
        let uri = content.get("uri").cloned().unwrap_or(Value::Null);
        let room = max_bytes.saturating_sub(used);
        let note = match content.get("text").and_then(Value::as_str) {
            Some(text) => {
                let end = crate::text::floor_char_boundary(text, room);
                format!(
                    "{}\n[... {} bytes cut: the resource is larger than mcp_tool_output_max_bytes ({max_bytes})]",
                    &text[..end],
                    text.len() - end
                )
            }
            None => format!(
                "[content of {size} bytes omitted: larger than mcp_tool_output_max_bytes ({max_bytes})]"
            ),
        };
        kept.push(json!({"uri": uri, "mimeType": "text/plain", "text": note}));
        let dropped = total - index - 1;
        if dropped > 0 {
            kept.push(json!({
                "uri": uri,
                "mimeType": "text/plain",
                "text": format!("[{dropped} more contents omitted]"),
            }));
        }
        break;
    }
    kept
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn contents_over_the_cap_are_cut_with_a_note() {
        let contents = vec![
            json!({"uri": "a", "text": "small"}),
            json!({"uri": "b", "text": "x".repeat(100)}),
            json!({"uri": "c", "blob": "AAAA"}),
        ];
        let kept = cap_contents(contents.clone(), 1000);
        assert_eq!(kept, contents);
        let kept = cap_contents(contents, 60);
        assert_eq!(kept.len(), 3);
        assert_eq!(kept[0], json!({"uri": "a", "text": "small"}));
        let cut = kept[1]["text"].as_str().unwrap();
        assert!(cut.contains("bytes cut"), "{cut}");
        assert_eq!(kept[2]["text"], "[1 more contents omitted]");
    }
}
