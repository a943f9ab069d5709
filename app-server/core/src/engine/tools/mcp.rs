//! Calls to MCP server tools (`mcp__<server>__<tool>`) as `mcpToolCall` items.
//!
//! Approval follows the thread's approval policy: `never` runs every call; `untrusted` asks
//! for every call; `on-request` asks unless the server marks the tool read-only. A server or
//! tool marked `trusted` in `[mcp_servers.NAME]` never asks. The question is an
//! `mcpServer/elicitation/request` form without fields (accept runs the call).
//!
//! A result over `mcp_tool_output_max_bytes` is cut, with a closing note saying how much was
//! cut, before it becomes the item, the model's input or a rollout line.

use std::time::Instant;

use app_server_protocol::item::ThreadItemDetails;
use app_server_protocol::mcp_servers::{
    McpServerElicitationAction, McpServerElicitationRequest, McpServerElicitationRequestParams,
    McpToolCallError, McpToolCallResult, McpToolCallStatus,
};
use app_server_protocol::policy::AskForApproval;
use serde_json::{Value, json};
use tandem_mcp_client::{CallResult, McpTool};

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::sync::lock;

impl TurnTask {
    /// Runs `call` against `tool`'s server and reports it as an `mcpToolCall` item.
    pub(super) async fn mcp_tool_call(&mut self, call: &ToolCall, tool: McpTool) -> ToolOutcome {
        let arguments: Value = if call.payload.trim().is_empty() {
            json!({})
        } else {
            match serde_json::from_str(&call.payload) {
                Ok(arguments) => arguments,
                Err(error) => {
                    return call.reply(format!("failed to parse function arguments: {error}"));
                }
            }
        };
        let details = |status, result, error, duration_ms| ThreadItemDetails::McpToolCall {
            id: call.call_id.clone(),
            server: tool.server.clone(),
            tool: tool.name.clone(),
            status,
            arguments: arguments.clone(),
            app_context: None,
            mcp_app_resource_uri: None,
            mcp_app_ui: None,
            plugin_id: None,
            read_only_hint: Some(tool.read_only),
            result,
            error,
            duration_ms,
        };
        let started = self
            .start_item(details(McpToolCallStatus::InProgress, None, None, None))
            .await;
        let clock = Instant::now();
        let fail = |message: String| {
            (
                details(
                    McpToolCallStatus::Failed,
                    None,
                    Some(McpToolCallError {
                        message: message.clone(),
                    }),
                    Some(elapsed_ms(clock)),
                ),
                message,
            )
        };

        let (completed, output, interrupt) = match self.approve_mcp_call(&tool, &arguments).await {
            Approval::Run => {
                let object = match arguments {
                    Value::Object(ref map) => Some(map.clone()),
                    Value::Null => None,
                    _ => {
                        let (item, message) = fail("arguments must be a JSON object".into());
                        return self
                            .finish_mcp_call(call, &started, item, message, false)
                            .await;
                    }
                };
                match self.call_mcp_tool(&tool, object, &call.call_id).await {
                    Ok(result) => {
                        // Cut before anyone sees it: the model, the client and the rollout.
                        let result =
                            result.truncated(self.engine.config().mcp_tool_output_max_bytes);
                        let output = model_output(&result);
                        let item = details(
                            McpToolCallStatus::Completed,
                            Some(McpToolCallResult {
                                content: result.content,
                                structured_content: result.structured_content,
                                meta: result.meta,
                            }),
                            None,
                            Some(elapsed_ms(clock)),
                        );
                        (item, output, false)
                    }
                    Err(error) => {
                        let interrupted = self.cancel.is_cancelled();
                        let (item, message) = fail(error.to_string());
                        (
                            item,
                            format!("MCP tool call failed: {message}"),
                            interrupted,
                        )
                    }
                }
            }
            Approval::Declined(message) => {
                let (item, message) = fail(message);
                (item, message, false)
            }
            Approval::Interrupted => {
                let (item, message) = fail("the turn was interrupted".into());
                (item, message, true)
            }
        };
        self.finish_mcp_call(call, &started, completed, output, interrupt)
            .await
    }

    async fn finish_mcp_call(
        &mut self,
        call: &ToolCall,
        started: &app_server_protocol::item::ThreadItem,
        details: ThreadItemDetails,
        output: String,
        interrupt: bool,
    ) -> ToolOutcome {
        let item = self.complete_item(started, details).await;
        ToolOutcome {
            output: call.output(output),
            items: vec![item],
            interrupt,
            follow_up: Vec::new(),
        }
    }

    /// Whether the call may run, asking the user when the policy says so.
    async fn approve_mcp_call(&self, tool: &McpTool, arguments: &Value) -> Approval {
        let policy = lock(&self.thread.state).meta.approval_policy;
        let ask = match policy {
            AskForApproval::Never => false,
            AskForApproval::Untrusted => true,
            AskForApproval::OnRequest | AskForApproval::Granular(_) => !tool.read_only,
        };
        if !ask || self.thread.mcp.is_trusted(&tool.server, &tool.name) {
            return Approval::Run;
        }
        if let AskForApproval::Granular(config) = policy
            && !config.mcp_elicitations
        {
            return Approval::Declined(
                "the granular approval policy has `mcp_elicitations: false`, so this MCP tool call that needs the user's approval was refused".into(),
            );
        }
        let params = McpServerElicitationRequestParams {
            thread_id: self.thread.id.clone(),
            turn_id: Some(self.turn_id.clone()),
            server_name: tool.server.clone(),
            request: McpServerElicitationRequest::Form {
                meta: Some(json!({
                    "tandem/approvalKind": "mcpToolCall",
                    "tool": tool.name,
                    "arguments": arguments,
                })),
                message: format!(
                    "Allow the MCP server `{}` to run the tool `{}`?",
                    tool.server, tool.name
                ),
                requested_schema: json!({"type": "object", "properties": {}}),
            },
        };
        match self.ask(ApprovalRequest::McpElicitation(params)).await {
            ApprovalReply::Answered(ApprovalAnswer::McpElicitation(answer)) => {
                match answer.action {
                    McpServerElicitationAction::Accept => Approval::Run,
                    McpServerElicitationAction::Decline | McpServerElicitationAction::Cancel => {
                        Approval::Declined("the user declined this MCP tool call".into())
                    }
                }
            }
            ApprovalReply::Answered(other) => Approval::Declined(format!(
                "the approval request failed: the client answered with {}",
                other.kind()
            )),
            ApprovalReply::Failed(message) => {
                Approval::Declined(format!("the approval request failed: {message}"))
            }
            ApprovalReply::Withdrawn => Approval::Interrupted,
        }
    }
}

enum Approval {
    Run,
    Declined(String),
    Interrupted,
}

/// What the model reads: the structured result when there is one, else the text blocks (or
/// the content as JSON when it holds more than text); errors say so.
fn model_output(result: &CallResult) -> String {
    let body = if let Some(structured) = &result.structured_content {
        structured.to_string()
    } else if result
        .content
        .iter()
        .all(|block| block.get("type").and_then(Value::as_str) == Some("text"))
    {
        result
            .content
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        Value::Array(result.content.clone()).to_string()
    };
    if result.is_error {
        format!("MCP tool error: {body}")
    } else {
        body
    }
}

fn elapsed_ms(clock: Instant) -> i64 {
    i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX)
}
