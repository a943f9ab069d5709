//! The threads a connection opened through the first-generation conversation API, and what
//! makes them different on the wire: their events also go out as `codex/event`, their
//! approvals are `applyPatchApproval` / `execCommandApproval` answered with a
//! `ReviewDecision`, and `interruptConversation` answers once the turn has stopped.

use std::collections::HashMap;
use std::sync::Mutex;

use app_server_protocol::codex_event::{CodexEventMeta, CodexEventNotification};
use app_server_protocol::dynamic_tools::DynamicToolCallResponse;
use app_server_protocol::item::DynamicToolCallOutputContentItem;
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::legacy::{
    ApplyPatchApprovalParams, ExecCommandApprovalParams, ReviewDecision, ReviewDecisionDetail,
    ReviewDecisionName,
};
use app_server_protocol::server_requests::{
    CommandExecutionApprovalDecision, FileChangeApprovalDecision,
};
use app_server_protocol::tables::{ServerNotification, ServerRequestPayload};
use app_server_protocol::thread::TurnStatus;
use tokio::sync::oneshot;

use crate::compat::codex_events::{CodexEvents, Event, parsed_commands};
use tandem_core::engine::approval::{ApprovalAnswer, ApprovalRequest};
use tandem_core::sync::lock;

/// The conversations of one connection.
#[derive(Default)]
pub struct Conversations {
    /// Conversation (thread) id → the request that started its running turn, if any.
    threads: Mutex<HashMap<String, Option<RequestId>>>,
    /// The engine-event → Codex-event mapping of the conversations.
    codex: Mutex<CodexEvents>,
    /// `interruptConversation` requests waiting for their turn to stop, by thread id.
    interrupts: Mutex<HashMap<String, Vec<oneshot::Sender<TurnStatus>>>>,
}

impl Conversations {
    /// Marks a thread as a conversation.
    pub fn open(&self, thread_id: &str) {
        lock(&self.threads)
            .entry(thread_id.to_string())
            .or_insert(None);
    }

    /// Whether a thread is a conversation of this connection.
    pub fn contains(&self, thread_id: &str) -> bool {
        lock(&self.threads).contains_key(thread_id)
    }

    /// Records the request that started a conversation's turn (its events carry its id).
    pub fn set_request(&self, thread_id: &str, request_id: RequestId) {
        lock(&self.threads).insert(thread_id.to_string(), Some(request_id));
    }

    /// Waits for the end of a conversation's running turn.
    pub fn wait_turn_end(&self, thread_id: &str) -> oneshot::Receiver<TurnStatus> {
        let (sender, receiver) = oneshot::channel();
        lock(&self.interrupts)
            .entry(thread_id.to_string())
            .or_default()
            .push(sender);
        receiver
    }

    /// The `codex/event` params for one engine notification of a conversation (none for
    /// other threads).
    pub fn translate(&self, notification: &ServerNotification) -> Vec<CodexEventNotification> {
        let Some(thread_id) = crate::compat::codex_events::notification_thread(notification) else {
            return Vec::new();
        };
        let request_id = match lock(&self.threads).get(thread_id) {
            Some(request_id) => request_id.clone(),
            None => return Vec::new(),
        };
        if let ServerNotification::TurnCompleted(completed) = notification {
            let waiting = lock(&self.interrupts).remove(thread_id);
            for sender in waiting.into_iter().flatten() {
                let _ = sender.send(completed.turn.status);
            }
        }
        let events = lock(&self.codex).translate(notification);
        events
            .into_iter()
            .map(|event| envelope(event, request_id.clone()))
            .collect()
    }

    /// The `codex/event` params announcing an approval question of a conversation.
    pub fn approval_event(&self, request: &ApprovalRequest) -> Option<CodexEventNotification> {
        let request_id = lock(&self.threads).get(request.thread_id()).cloned()?;
        let event = lock(&self.codex).approval(request)?;
        Some(envelope(event, request_id))
    }

    /// The legacy server request for a question (`None` for questions that have none, which
    /// keep their thread-API request).
    pub fn legacy_request(&self, request: &ApprovalRequest) -> Option<ServerRequestPayload> {
        match request {
            ApprovalRequest::Command(params) => Some(ServerRequestPayload::ExecCommandApproval(
                ExecCommandApprovalParams {
                    conversation_id: params.thread_id.clone(),
                    call_id: params.item_id.clone(),
                    approval_id: None,
                    command: params
                        .command
                        .as_deref()
                        .map(|command| {
                            shlex::split(command).unwrap_or_else(|| vec![command.to_string()])
                        })
                        .unwrap_or_default(),
                    cwd: params.cwd.clone().unwrap_or_default(),
                    reason: params.reason.clone(),
                    parsed_cmd: parsed_commands(
                        params.command_actions.as_deref().unwrap_or_default(),
                    ),
                },
            )),
            ApprovalRequest::FileChange(params) => {
                let file_changes =
                    lock(&self.codex).patch_changes(&params.thread_id, &params.item_id);
                Some(ServerRequestPayload::ApplyPatchApproval(
                    ApplyPatchApprovalParams {
                        conversation_id: params.thread_id.clone(),
                        call_id: params.item_id.clone(),
                        file_changes,
                        reason: params.reason.clone(),
                        grant_root: params.grant_root.clone(),
                    },
                ))
            }
            ApprovalRequest::UserInput(_)
            | ApprovalRequest::FreeText(_)
            | ApprovalRequest::Choices(_)
            | ApprovalRequest::McpElicitation(_)
            | ApprovalRequest::DynamicToolCall(_)
            | ApprovalRequest::Permissions(_) => None,
        }
    }
}

fn envelope(event: Event, request_id: Option<RequestId>) -> CodexEventNotification {
    CodexEventNotification {
        meta: CodexEventMeta {
            request_id,
            thread_id: event.thread_id,
        },
        id: event.id,
        msg: event.msg,
    }
}

/// The engine's typed answer for a legacy decision on `request`: `allow` / `approved` run,
/// `approved_for_session` (and the amendments) also remember, `deny` / `denied` /
/// `timed_out` decline and the turn goes on, `abort` declines and stops the turn.
pub fn review_answer(request: &ApprovalRequest, decision: &ReviewDecision) -> ApprovalAnswer {
    #[derive(Clone, Copy)]
    enum Verdict {
        Accept,
        AcceptForSession,
        Decline,
        Cancel,
    }
    let verdict = match decision {
        ReviewDecision::Named(name) => match name {
            ReviewDecisionName::Allow | ReviewDecisionName::Approved => Verdict::Accept,
            ReviewDecisionName::ApprovedForSession
            | ReviewDecisionName::ApprovedMcpPolicyAmendment => Verdict::AcceptForSession,
            ReviewDecisionName::Deny
            | ReviewDecisionName::Denied
            | ReviewDecisionName::TimedOut => Verdict::Decline,
            ReviewDecisionName::Abort => Verdict::Cancel,
        },
        ReviewDecision::Detailed(detail) => match detail {
            ReviewDecisionDetail::ApprovedExecpolicyAmendment { .. } => Verdict::AcceptForSession,
            ReviewDecisionDetail::Denied { .. } => Verdict::Decline,
            ReviewDecisionDetail::NetworkPolicyAmendment { .. } => Verdict::Accept,
        },
    };
    match request {
        ApprovalRequest::FileChange(_) => ApprovalAnswer::FileChange(match verdict {
            Verdict::Accept => FileChangeApprovalDecision::Accept,
            Verdict::AcceptForSession => FileChangeApprovalDecision::AcceptForSession,
            Verdict::Decline => FileChangeApprovalDecision::Decline,
            Verdict::Cancel => FileChangeApprovalDecision::Cancel,
        }),
        // A client tool is never asked as a legacy request; a decision is no tool output.
        ApprovalRequest::DynamicToolCall(_) => {
            ApprovalAnswer::DynamicToolCall(DynamicToolCallResponse {
                content_items: vec![DynamicToolCallOutputContentItem::InputText {
                    text: "the client answered with a review decision instead of the tool's output"
                        .into(),
                }],
                success: false,
            })
        }
        // A permission request is never asked as a legacy request; a decision grants nothing.
        ApprovalRequest::Permissions(_) => ApprovalAnswer::Permissions(
            app_server_protocol::permissions::PermissionsRequestApprovalResponse {
                permissions: Default::default(),
                scope: Default::default(),
                strict_auto_review: None,
            },
        ),
        // A command question (questions and elicitations never get a legacy request).
        ApprovalRequest::Command(_)
        | ApprovalRequest::UserInput(_)
        | ApprovalRequest::FreeText(_)
        | ApprovalRequest::Choices(_)
        | ApprovalRequest::McpElicitation(_) => ApprovalAnswer::Command(match verdict {
            Verdict::Accept => CommandExecutionApprovalDecision::Accept,
            Verdict::AcceptForSession => CommandExecutionApprovalDecision::AcceptForSession,
            Verdict::Decline => CommandExecutionApprovalDecision::Decline,
            Verdict::Cancel => CommandExecutionApprovalDecision::Cancel,
        }),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn command_request() -> ApprovalRequest {
        ApprovalRequest::Command(
            serde_json::from_value(json!({
                "kind": "command", "threadId": "t", "turnId": "u", "itemId": "call_1",
                "startedAtMs": 1, "command": "/bin/bash -c 'echo hi'", "cwd": "/w",
            }))
            .expect("params"),
        )
    }

    #[test]
    fn every_legacy_decision_maps_onto_a_typed_answer() {
        let request = command_request();
        let cases = [
            (json!("allow"), CommandExecutionApprovalDecision::Accept),
            (json!("approved"), CommandExecutionApprovalDecision::Accept),
            (
                json!("approved_for_session"),
                CommandExecutionApprovalDecision::AcceptForSession,
            ),
            (
                json!({"approved_execpolicy_amendment": {"proposed_execpolicy_amendment": ["echo"]}}),
                CommandExecutionApprovalDecision::AcceptForSession,
            ),
            (json!("deny"), CommandExecutionApprovalDecision::Decline),
            (json!("denied"), CommandExecutionApprovalDecision::Decline),
            (
                json!({"denied": {"rejection": "no"}}),
                CommandExecutionApprovalDecision::Decline,
            ),
            (
                json!("timed_out"),
                CommandExecutionApprovalDecision::Decline,
            ),
            (json!("abort"), CommandExecutionApprovalDecision::Cancel),
        ];
        for (wire, expected) in cases {
            let decision: ReviewDecision = serde_json::from_value(wire.clone()).expect("decision");
            assert_eq!(
                review_answer(&request, &decision),
                ApprovalAnswer::Command(expected),
                "{wire}"
            );
        }
        assert!(serde_json::from_value::<ReviewDecision>(json!("maybe")).is_err());
    }

    #[test]
    fn a_command_question_becomes_exec_command_approval() {
        let conversations = Conversations::default();
        conversations.open("t");
        let payload = conversations
            .legacy_request(&command_request())
            .expect("legacy request");
        assert_eq!(
            serde_json::to_value(&payload).expect("json"),
            json!({
                "method": "execCommandApproval",
                "params": {
                    "conversationId": "t", "callId": "call_1", "approvalId": null,
                    "command": ["/bin/bash", "-c", "echo hi"], "cwd": "/w", "reason": null,
                    "parsedCmd": [],
                },
            })
        );
    }
}
