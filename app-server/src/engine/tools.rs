//! Model tools. Tool execution (commands, patches, plans, questions) arrives with the tools
//! issue; until then every call gets an output saying the tool is unavailable, so that the
//! conversation stays valid (every call needs exactly one output).

use crate::model::{ResponseItem, ToolSpec};

/// Tools offered to the model.
pub fn specs() -> Vec<ToolSpec> {
    Vec::new()
}

/// Runs one tool call and returns its output item.
pub async fn run(call: &ResponseItem) -> ResponseItem {
    match call {
        ResponseItem::CustomToolCall { call_id, name, .. } => ResponseItem::CustomToolCallOutput {
            call_id: call_id.clone(),
            output: format!("tool `{name}` is not available in this server"),
        },
        ResponseItem::FunctionCall { call_id, name, .. } => ResponseItem::FunctionCallOutput {
            call_id: call_id.clone(),
            output: format!("tool `{name}` is not available in this server"),
        },
        other => ResponseItem::FunctionCallOutput {
            call_id: String::new(),
            output: format!("unexpected tool call item: {other:?}"),
        },
    }
}
