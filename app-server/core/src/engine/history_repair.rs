//! Repairs of a stored model history before a thread is resumed or forked.

use crate::model::ResponseItem;

/// Gives every tool call without an output (the process died mid-turn) an "aborted" output,
/// so that the next model request is valid.
pub(super) fn close_dangling_calls(history: &mut Vec<ResponseItem>) {
    let answered: std::collections::HashSet<String> = history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { call_id, .. }
            | ResponseItem::CustomToolCallOutput { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    let missing: Vec<ResponseItem> = history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCall { call_id, .. } if !answered.contains(call_id) => {
                Some(ResponseItem::FunctionCallOutput {
                    call_id: call_id.clone(),
                    output: "aborted: the turn ended before this call finished".into(),
                })
            }
            ResponseItem::CustomToolCall { call_id, .. } if !answered.contains(call_id) => {
                Some(ResponseItem::CustomToolCallOutput {
                    call_id: call_id.clone(),
                    output: "aborted: the turn ended before this call finished".into(),
                })
            }
            _ => None,
        })
        .collect();
    history.extend(missing);
}
