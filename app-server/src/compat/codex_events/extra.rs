//! The thread notifications whose Codex events need no per-thread state: compaction, a
//! command's terminal interaction, plan deltas, patch updates and MCP tool-call progress.

use app_server_protocol::codex_event::EventMsg;
use app_server_protocol::tables::ServerNotification;

use super::shapes::file_changes;

/// The thread of one of these notifications (`None` for any other notification).
pub(super) fn notification_thread(notification: &ServerNotification) -> Option<&str> {
    Some(match notification {
        ServerNotification::ThreadCompacted(event) => &event.thread_id,
        ServerNotification::CommandExecutionTerminalInteraction(event) => &event.thread_id,
        ServerNotification::PlanDelta(event) => &event.thread_id,
        ServerNotification::FileChangePatchUpdated(event) => &event.thread_id,
        ServerNotification::McpToolCallProgress(event) => &event.thread_id,
        _ => return None,
    })
}

/// Pushes the Codex event (turn id, event) of one of these notifications.
pub(super) fn translate(notification: &ServerNotification, push: &mut impl FnMut(&str, EventMsg)) {
    match notification {
        ServerNotification::ThreadCompacted(event) => {
            push(&event.turn_id, EventMsg::ContextCompacted {});
        }
        ServerNotification::CommandExecutionTerminalInteraction(event) => push(
            &event.turn_id,
            EventMsg::TerminalInteraction {
                call_id: event.item_id.clone(),
                process_id: event.process_id.clone(),
                stdin: event.stdin.clone(),
            },
        ),
        ServerNotification::PlanDelta(event) => push(
            &event.turn_id,
            EventMsg::PlanDelta {
                thread_id: event.thread_id.clone(),
                turn_id: event.turn_id.clone(),
                item_id: event.item_id.clone(),
                delta: event.delta.clone(),
            },
        ),
        ServerNotification::FileChangePatchUpdated(event) => push(
            &event.turn_id,
            EventMsg::PatchApplyUpdated {
                call_id: event.item_id.clone(),
                changes: file_changes(&event.changes),
            },
        ),
        ServerNotification::McpToolCallProgress(event) => push(
            &event.turn_id,
            EventMsg::McpToolCallProgress {
                call_id: event.item_id.clone(),
                message: event.message.clone(),
            },
        ),
        _ => {}
    }
}
