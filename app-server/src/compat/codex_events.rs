//! Engine events → Codex events (`EventMsg`), for `codex/event`.
//!
//! There is one event pipeline: the engine emits app-server notifications, and this module
//! maps each one (and each approval question) onto the Codex events that describe it, so that
//! the MCP adapter and the app-server's conversation API send what Codex clients parse.
//! The mapping keeps a little state per thread, because Codex events say things the
//! notification alone does not: the last agent message of the turn for `task_complete`, and
//! whether a command waits for approval (its `exec_command_begin` then comes after the
//! answer, as Codex orders it).
//!
//! Orders produced (as `spec/codex-events.md` observed them): a plain turn is
//! `task_started`, `item_started`/`item_completed` (UserMessage), `user_message`,
//! `item_started` (AgentMessage), `agent_message_content_delta`…, `item_completed`,
//! `agent_message`, `token_count`, `task_complete`. A command that needs approval is
//! `exec_approval_request`, then after the answer `exec_command_begin`,
//! `exec_command_output_delta`…, `exec_command_end`; a patch is
//! `apply_patch_approval_request`, `patch_apply_begin`, `patch_apply_end`.

use std::collections::{BTreeMap, HashMap, HashSet};

use app_server_protocol::codex_event::{ActivePermissionProfile, EventMsg, TokenUsageInfo};
use app_server_protocol::item::{CommandExecutionStatus, PatchApplyStatus, ThreadItemDetails};
use app_server_protocol::legacy::FileChange;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{ThreadActiveFlag, ThreadStatus, Turn, TurnStatus};
use app_server_protocol::thread_requests::ThreadStartResponse;
use base64::Engine as _;

use tandem_core::engine::approval::ApprovalRequest;

mod extra;
mod shapes;

use shapes::{
    argv, exec_begin, exec_end, no_rate_limits, patch_end, permission_profile, review_decision,
    token_usage, turn_item, user_message,
};
pub use shapes::{file_changes, parsed_commands};

/// One Codex event and the thread it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The thread (conversation) id.
    pub thread_id: String,
    /// The turn id, or `""` for session-level events.
    pub id: String,
    /// The event.
    pub msg: EventMsg,
}

/// The mapping state of every thread that has emitted events.
#[derive(Debug, Default)]
pub struct CodexEvents {
    threads: HashMap<String, ThreadEvents>,
}

/// What the mapping remembers about one thread's running turn.
#[derive(Debug, Default)]
struct ThreadEvents {
    /// The running turn's id: a `warning` (which names no turn) is that turn's event.
    turn_id: Option<String>,
    /// Start of the running turn (Unix seconds).
    turn_started_at: Option<i64>,
    /// When the first agent message of the turn started (Unix milliseconds).
    first_message_ms: Option<i64>,
    /// Text of the turn's last completed agent message.
    last_agent_message: Option<String>,
    /// The thread is waiting for an approval answer.
    waiting_on_approval: bool,
    /// `exec_command_begin` of commands that wait for approval, by call id: sent when the
    /// command produces output or ends.
    pending_begins: HashMap<String, EventMsg>,
    /// File changes started in this turn, by call id.
    patches: HashMap<String, BTreeMap<String, FileChange>>,
    /// Patches the user was asked about.
    asked_patches: HashSet<String>,
    /// The model's context window, once a usage report said it.
    model_context_window: Option<i64>,
}

impl CodexEvents {
    /// The Codex events for one engine notification (none for notifications Codex has no
    /// event for, such as `thread/status/changed`).
    pub fn translate(&mut self, notification: &ServerNotification) -> Vec<Event> {
        let Some(thread_id) = notification_thread(notification) else {
            return Vec::new();
        };
        let state = self.threads.entry(thread_id.to_string()).or_default();
        let mut out = Vec::new();
        let mut push = |turn_id: &str, msg: EventMsg| {
            out.push(Event {
                thread_id: thread_id.to_string(),
                id: turn_id.to_string(),
                msg,
            });
        };
        match notification {
            ServerNotification::TurnStarted(started) => {
                let window = state.model_context_window;
                *state = ThreadEvents {
                    turn_id: Some(started.turn.id.clone()),
                    turn_started_at: started.turn.started_at,
                    model_context_window: window,
                    ..ThreadEvents::default()
                };
                push(
                    &started.turn.id,
                    EventMsg::TaskStarted {
                        turn_id: started.turn.id.clone(),
                        started_at: started.turn.started_at,
                        model_context_window: window,
                        collaboration_mode_kind: "default".to_string(),
                    },
                );
            }
            ServerNotification::ThreadStatusChanged(changed) => {
                state.waiting_on_approval = matches!(
                    &changed.status,
                    ThreadStatus::Active { active_flags }
                        if active_flags.contains(&ThreadActiveFlag::WaitingOnApproval)
                );
            }
            ServerNotification::ItemStarted(started) => {
                let turn_id = &started.turn_id;
                match &started.item.details {
                    ThreadItemDetails::CommandExecution { id, .. } => {
                        let begin = exec_begin(turn_id, &started.item, started.started_at_ms);
                        if state.waiting_on_approval {
                            state.pending_begins.insert(id.clone(), begin);
                        } else {
                            push(turn_id, begin);
                        }
                    }
                    ThreadItemDetails::FileChange { id, changes, .. } => {
                        state
                            .patches
                            .insert(id.clone(), file_changes(changes.as_slice()));
                    }
                    details => {
                        if let ThreadItemDetails::AgentMessage { .. } = details {
                            state.first_message_ms.get_or_insert(started.started_at_ms);
                        }
                        if let Some(item) = turn_item(details) {
                            push(
                                turn_id,
                                EventMsg::ItemStarted {
                                    thread_id: thread_id.to_string(),
                                    turn_id: turn_id.clone(),
                                    item,
                                    started_at_ms: started.started_at_ms,
                                },
                            );
                        }
                    }
                }
            }
            ServerNotification::AgentMessageDelta(delta) => push(
                &delta.turn_id,
                EventMsg::AgentMessageContentDelta {
                    thread_id: thread_id.to_string(),
                    turn_id: delta.turn_id.clone(),
                    item_id: delta.item_id.clone(),
                    delta: delta.delta.clone(),
                },
            ),
            ServerNotification::ReasoningSummaryTextDelta(delta) => push(
                &delta.turn_id,
                EventMsg::AgentReasoningDelta {
                    delta: delta.delta.clone(),
                },
            ),
            ServerNotification::ReasoningTextDelta(delta) => push(
                &delta.turn_id,
                EventMsg::AgentReasoningRawContentDelta {
                    delta: delta.delta.clone(),
                },
            ),
            ServerNotification::CommandExecutionOutputDelta(delta) => {
                if let Some(begin) = state.pending_begins.remove(&delta.item_id) {
                    push(&delta.turn_id, begin);
                }
                push(
                    &delta.turn_id,
                    EventMsg::ExecCommandOutputDelta {
                        call_id: delta.item_id.clone(),
                        stream: "stdout".to_string(),
                        chunk: base64::engine::general_purpose::STANDARD.encode(&delta.delta),
                    },
                );
            }
            ServerNotification::ItemCompleted(completed) => {
                let turn_id = &completed.turn_id;
                let item = &completed.item;
                let started_at_ms = item.started_at_ms.unwrap_or(completed.completed_at_ms);
                match &item.details {
                    ThreadItemDetails::CommandExecution { id, status, .. } => {
                        // A declined command never began: only its end (status `declined`).
                        let begin = state.pending_begins.remove(id);
                        if *status != CommandExecutionStatus::Declined
                            && let Some(begin) = begin
                        {
                            push(turn_id, begin);
                        }
                        push(turn_id, exec_end(turn_id, item, completed.completed_at_ms));
                    }
                    ThreadItemDetails::FileChange {
                        id,
                        changes,
                        status,
                    } => {
                        let changes = state
                            .patches
                            .remove(id)
                            .unwrap_or_else(|| file_changes(changes.as_slice()));
                        let asked = state.asked_patches.remove(id);
                        if *status != PatchApplyStatus::Declined {
                            push(
                                turn_id,
                                EventMsg::PatchApplyBegin {
                                    call_id: id.clone(),
                                    turn_id: turn_id.clone(),
                                    auto_approved: !asked,
                                    changes: changes.clone(),
                                },
                            );
                        }
                        push(turn_id, patch_end(id, turn_id, changes, *status));
                    }
                    details => {
                        if let Some(turn_item) = turn_item(details) {
                            push(
                                turn_id,
                                EventMsg::ItemCompleted {
                                    thread_id: thread_id.to_string(),
                                    turn_id: turn_id.clone(),
                                    item: turn_item,
                                    started_at_ms,
                                    completed_at_ms: completed.completed_at_ms,
                                },
                            );
                        }
                        match details {
                            ThreadItemDetails::UserMessage { content, .. } => {
                                push(turn_id, user_message(content));
                            }
                            ThreadItemDetails::AgentMessage { text, phase, .. } => {
                                state.last_agent_message = Some(text.clone());
                                push(
                                    turn_id,
                                    EventMsg::AgentMessage {
                                        message: text.clone(),
                                        phase: *phase,
                                        memory_citation: None,
                                    },
                                );
                            }
                            ThreadItemDetails::Reasoning { summary, .. } if !summary.is_empty() => {
                                push(
                                    turn_id,
                                    EventMsg::AgentReasoning {
                                        text: summary.join("\n\n"),
                                    },
                                );
                            }
                            _ => {}
                        }
                    }
                }
            }
            ServerNotification::ThreadTokenUsageUpdated(usage) => {
                let window = usage.token_usage.model_context_window;
                if window.is_some() {
                    state.model_context_window = window;
                }
                push(
                    &usage.turn_id,
                    EventMsg::TokenCount {
                        info: Some(TokenUsageInfo {
                            total_token_usage: token_usage(&usage.token_usage.total),
                            last_token_usage: token_usage(&usage.token_usage.last),
                            model_context_window: state.model_context_window,
                        }),
                        rate_limits: Some(no_rate_limits()),
                    },
                );
            }
            ServerNotification::TurnDiffUpdated(diff) => push(
                &diff.turn_id,
                EventMsg::TurnDiff {
                    unified_diff: diff.diff.clone(),
                },
            ),
            ServerNotification::TurnPlanUpdated(plan) => push(
                &plan.turn_id,
                EventMsg::PlanUpdate {
                    explanation: plan.explanation.clone(),
                    plan: plan.plan.iter().map(shapes::plan_item).collect(),
                },
            ),
            ServerNotification::Error(error) => push(
                &error.turn_id,
                EventMsg::Error {
                    message: error.error.message.clone(),
                },
            ),
            ServerNotification::Warning(warning) => push(
                state.turn_id.as_deref().unwrap_or_default(),
                EventMsg::Warning {
                    message: warning.message.clone(),
                },
            ),
            ServerNotification::TurnCompleted(completed) => {
                let turn = &completed.turn;
                let msg = match turn.status {
                    TurnStatus::Interrupted => EventMsg::TurnAborted {
                        turn_id: turn.id.clone(),
                        reason: "interrupted".to_string(),
                        started_at: turn.started_at.or(state.turn_started_at),
                        completed_at: turn.completed_at,
                        duration_ms: turn.duration_ms,
                    },
                    TurnStatus::Completed | TurnStatus::Failed | TurnStatus::InProgress => {
                        let started_at = turn.started_at.or(state.turn_started_at);
                        EventMsg::TaskComplete {
                            turn_id: turn.id.clone(),
                            last_agent_message: state.last_agent_message.take(),
                            started_at,
                            completed_at: turn.completed_at,
                            duration_ms: turn.duration_ms,
                            time_to_first_token_ms: state
                                .first_message_ms
                                .zip(started_at)
                                .map(|(first, start)| (first - start * 1000).max(0)),
                        }
                    }
                };
                state.pending_begins.clear();
                state.patches.clear();
                state.asked_patches.clear();
                state.turn_id = None;
                push(&turn.id, msg);
            }
            ServerNotification::ThreadClosed(_)
            | ServerNotification::ThreadArchived(_)
            | ServerNotification::ThreadDeleted(_) => {
                self.threads.remove(thread_id);
            }
            _ => extra::translate(notification, &mut push),
        }
        out
    }

    /// The Codex event announcing an approval question (`exec_approval_request`,
    /// `apply_patch_approval_request`); `None` for questions Codex has no event for.
    pub fn approval(&mut self, request: &ApprovalRequest) -> Option<Event> {
        match request {
            ApprovalRequest::Command(params) => {
                let display = params.command.clone().unwrap_or_default();
                let available_decisions = params
                    .available_decisions
                    .as_deref()
                    .unwrap_or_default()
                    .iter()
                    .map(review_decision)
                    .collect();
                Some(Event {
                    thread_id: params.thread_id.clone(),
                    id: params.turn_id.clone(),
                    msg: EventMsg::ExecApprovalRequest {
                        kind: "command".to_string(),
                        call_id: params.item_id.clone(),
                        turn_id: params.turn_id.clone(),
                        environment_id: params
                            .environment_id
                            .clone()
                            .unwrap_or_else(|| "local".to_string()),
                        started_at_ms: params.started_at_ms,
                        command: argv(&display),
                        cwd: params.cwd.clone().unwrap_or_default(),
                        reason: params.reason.clone(),
                        proposed_execpolicy_amendment: params.proposed_execpolicy_amendment.clone(),
                        available_decisions,
                        parsed_cmd: parsed_commands(
                            params.command_actions.as_deref().unwrap_or_default(),
                        ),
                    },
                })
            }
            ApprovalRequest::FileChange(params) => {
                let state = self.threads.entry(params.thread_id.clone()).or_default();
                state.asked_patches.insert(params.item_id.clone());
                let changes = state
                    .patches
                    .get(&params.item_id)
                    .cloned()
                    .unwrap_or_default();
                Some(Event {
                    thread_id: params.thread_id.clone(),
                    id: params.turn_id.clone(),
                    msg: EventMsg::ApplyPatchApprovalRequest {
                        call_id: params.item_id.clone(),
                        turn_id: params.turn_id.clone(),
                        started_at_ms: params.started_at_ms,
                        changes,
                        reason: params.reason.clone(),
                        grant_root: params.grant_root.clone(),
                    },
                })
            }
            ApprovalRequest::UserInput(_)
            | ApprovalRequest::FreeText(_)
            | ApprovalRequest::Choices(_)
            | ApprovalRequest::McpElicitation(_)
            | ApprovalRequest::DynamicToolCall(_)
            | ApprovalRequest::Permissions(_) => None,
        }
    }

    /// The file changes of a patch item this thread has started, by absolute path.
    pub fn patch_changes(&self, thread_id: &str, call_id: &str) -> BTreeMap<String, FileChange> {
        self.threads
            .get(thread_id)
            .and_then(|state| state.patches.get(call_id))
            .cloned()
            .unwrap_or_default()
    }
}

/// The first events of a new conversation: `session_configured` and
/// `mcp_startup_complete`.
pub fn session_configured(response: &ThreadStartResponse) -> [EventMsg; 2] {
    let (permission_profile, profile_id) = permission_profile(&response.sandbox, &response.cwd);
    let approval_policy = serde_json::to_value(response.approval_policy)
        .ok()
        .and_then(|value| value.as_str().map(str::to_string))
        .unwrap_or_default();
    [
        EventMsg::SessionConfigured {
            session_id: response.thread.session_id.clone(),
            thread_id: response.thread.id.clone(),
            model: response.model.clone(),
            model_provider_id: response.model_provider.clone(),
            approval_policy,
            approvals_reviewer: "user".to_string(),
            permission_profile,
            active_permission_profile: ActivePermissionProfile {
                id: profile_id.to_string(),
            },
            cwd: response.cwd.clone(),
            reasoning_effort: response.reasoning_effort,
            rollout_path: response.thread.path.clone(),
        },
        EventMsg::McpStartupComplete {
            ready: Vec::new(),
            failed: Vec::new(),
            cancelled: Vec::new(),
        },
    ]
}

/// A stored conversation's messages as Codex events (`user_message`, `agent_message`), for
/// `resumeConversation.initialMessages`.
pub fn history_events(turns: &[Turn]) -> Vec<EventMsg> {
    turns
        .iter()
        .flat_map(|turn| turn.items.iter())
        .filter_map(|item| match &item.details {
            ThreadItemDetails::UserMessage { content, .. } => Some(user_message(content)),
            ThreadItemDetails::AgentMessage { text, phase, .. } => Some(EventMsg::AgentMessage {
                message: text.clone(),
                phase: *phase,
                memory_citation: None,
            }),
            _ => None,
        })
        .collect()
}

/// The thread a notification is about, if any.
pub fn notification_thread(notification: &ServerNotification) -> Option<&str> {
    Some(match notification {
        ServerNotification::TurnStarted(event) | ServerNotification::TurnCompleted(event) => {
            &event.thread_id
        }
        ServerNotification::ThreadStatusChanged(event) => &event.thread_id,
        ServerNotification::ThreadClosed(event)
        | ServerNotification::ThreadArchived(event)
        | ServerNotification::ThreadDeleted(event) => &event.thread_id,
        ServerNotification::ItemStarted(event) => &event.thread_id,
        ServerNotification::ItemCompleted(event) => &event.thread_id,
        ServerNotification::AgentMessageDelta(event)
        | ServerNotification::CommandExecutionOutputDelta(event) => &event.thread_id,
        ServerNotification::ReasoningSummaryTextDelta(event) => &event.thread_id,
        ServerNotification::ReasoningTextDelta(event) => &event.thread_id,
        ServerNotification::ThreadTokenUsageUpdated(event) => &event.thread_id,
        ServerNotification::TurnDiffUpdated(event) => &event.thread_id,
        ServerNotification::TurnPlanUpdated(event) => &event.thread_id,
        ServerNotification::Error(event) => &event.thread_id,
        ServerNotification::Warning(event) => event.thread_id.as_deref()?,
        _ => extra::notification_thread(notification)?,
    })
}

#[cfg(test)]
#[path = "codex_events_tests.rs"]
mod tests;
