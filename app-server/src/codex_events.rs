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

use app_server_protocol::codex_event::{
    ActivePermissionProfile, AgentMessageContent, EventDuration, EventMsg, RateLimitSnapshot,
    TokenUsage, TokenUsageInfo, TurnItem,
};
use app_server_protocol::item::{
    CommandAction, CommandExecutionSource, CommandExecutionStatus, FileUpdateChange,
    PatchApplyStatus, PatchChangeKind, ThreadItem, ThreadItemDetails, UserInput,
};
use app_server_protocol::legacy::{FileChange, ParsedCommand, ReviewDecision};
use app_server_protocol::legacy::{ReviewDecisionDetail, ReviewDecisionName};
use app_server_protocol::policy::SandboxPolicy;
use app_server_protocol::server_requests::CommandExecutionApprovalDecision;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{
    ThreadActiveFlag, ThreadStatus, TokenUsageBreakdown, Turn, TurnStatus,
};
use app_server_protocol::thread_requests::ThreadStartResponse;
use base64::Engine as _;

use crate::engine::approval::ApprovalRequest;

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
                    plan: plan.plan.clone(),
                },
            ),
            ServerNotification::Error(error) => push(
                &error.turn_id,
                EventMsg::Error {
                    message: error.error.message.clone(),
                },
            ),
            ServerNotification::Warning(warning) => push(
                "",
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
                push(&turn.id, msg);
            }
            ServerNotification::ThreadClosed(_) | ServerNotification::ThreadArchived(_) => {
                self.threads.remove(thread_id);
            }
            _ => {}
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
            ApprovalRequest::UserInput(_) => None,
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
        ServerNotification::ThreadClosed(event) | ServerNotification::ThreadArchived(event) => {
            &event.thread_id
        }
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
        _ => return None,
    })
}

/// The Codex turn item for an item Codex reports with `item_started` / `item_completed`.
fn turn_item(details: &ThreadItemDetails) -> Option<TurnItem> {
    Some(match details {
        ThreadItemDetails::UserMessage { id, content, .. } => TurnItem::UserMessage {
            id: id.clone(),
            content: content
                .iter()
                .map(|input| match input {
                    UserInput::Text { text, .. } => UserInput::Text {
                        text: text.clone(),
                        text_elements: Some(Vec::new()),
                    },
                    other => other.clone(),
                })
                .collect(),
        },
        ThreadItemDetails::AgentMessage {
            id, text, phase, ..
        } => TurnItem::AgentMessage {
            id: id.clone(),
            content: if text.is_empty() {
                Vec::new()
            } else {
                vec![AgentMessageContent::Text { text: text.clone() }]
            },
            phase: *phase,
            memory_citation: None,
        },
        ThreadItemDetails::Reasoning {
            id,
            summary,
            content,
        } => TurnItem::Reasoning {
            id: id.clone(),
            summary_text: summary.clone(),
            raw_content: content.clone(),
        },
        ThreadItemDetails::Plan { id, text } => TurnItem::Plan {
            id: id.clone(),
            text: text.clone(),
        },
        _ => return None,
    })
}

fn user_message(content: &[UserInput]) -> EventMsg {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    let mut local_images = Vec::new();
    for input in content {
        match input {
            UserInput::Text { text, .. } => texts.push(text.as_str()),
            UserInput::Image { url, .. } => images.push(url.clone()),
            UserInput::LocalImage { path, .. } => local_images.push(path.clone()),
        }
    }
    EventMsg::UserMessage {
        message: texts.join("\n"),
        images,
        local_images,
        audio: Vec::new(),
        local_audio: Vec::new(),
        text_elements: Vec::new(),
    }
}

/// A shell-joined command back to argv (the whole text when it does not parse).
fn argv(display: &str) -> Vec<String> {
    shlex::split(display).unwrap_or_else(|| vec![display.to_string()])
}

/// Codex writes a command's cwd in begin/end events as a `file://` URL.
fn cwd_url(cwd: &str) -> String {
    format!("file://{cwd}")
}

fn source_name(source: CommandExecutionSource) -> String {
    match source {
        CommandExecutionSource::Agent => "agent",
        CommandExecutionSource::UserShell => "user_shell",
        CommandExecutionSource::UnifiedExecStartup => "unified_exec_startup",
        CommandExecutionSource::UnifiedExecInteraction => "unified_exec_interaction",
    }
    .to_string()
}

fn exec_begin(turn_id: &str, item: &ThreadItem, started_at_ms: i64) -> EventMsg {
    let ThreadItemDetails::CommandExecution {
        id,
        command,
        cwd,
        process_id,
        command_actions,
        ..
    } = &item.details
    else {
        return EventMsg::Warning {
            message: "internal error: not a command".to_string(),
        };
    };
    EventMsg::ExecCommandBegin {
        call_id: id.clone(),
        process_id: process_id.clone(),
        turn_id: turn_id.to_string(),
        started_at_ms,
        command: argv(command),
        cwd: cwd_url(cwd),
        parsed_cmd: parsed_commands(command_actions),
        // Codex reports the unified-exec start; Tandem's commands all start that way.
        source: source_name(CommandExecutionSource::UnifiedExecStartup),
    }
}

fn exec_end(turn_id: &str, item: &ThreadItem, completed_at_ms: i64) -> EventMsg {
    let ThreadItemDetails::CommandExecution {
        id,
        command,
        cwd,
        process_id,
        source,
        status,
        command_actions,
        aggregated_output,
        exit_code,
        duration_ms,
        ..
    } = &item.details
    else {
        return EventMsg::Warning {
            message: "internal error: not a command".to_string(),
        };
    };
    let output = aggregated_output.clone().unwrap_or_default();
    let duration_ms = u64::try_from(duration_ms.unwrap_or(0)).unwrap_or(0);
    EventMsg::ExecCommandEnd {
        call_id: id.clone(),
        process_id: process_id.clone(),
        turn_id: turn_id.to_string(),
        completed_at_ms,
        command: argv(command),
        cwd: cwd_url(cwd),
        parsed_cmd: parsed_commands(command_actions),
        source: source_name(*source),
        stdout: output.clone(),
        stderr: String::new(),
        aggregated_output: output.clone(),
        exit_code: exit_code.unwrap_or(-1),
        duration: EventDuration {
            secs: duration_ms / 1000,
            nanos: u32::try_from((duration_ms % 1000) * 1_000_000).unwrap_or(0),
        },
        formatted_output: output,
        status: match status {
            CommandExecutionStatus::InProgress | CommandExecutionStatus::Completed => "completed",
            CommandExecutionStatus::Failed => "failed",
            CommandExecutionStatus::Declined => "declined",
        }
        .to_string(),
    }
}

fn patch_end(
    call_id: &str,
    turn_id: &str,
    changes: BTreeMap<String, FileChange>,
    status: PatchApplyStatus,
) -> EventMsg {
    let success = status == PatchApplyStatus::Completed;
    let stdout = if success {
        let mut summary = String::from("Success. Updated the following files:\n");
        for (path, change) in &changes {
            let letter = match change {
                FileChange::Add { .. } => 'A',
                FileChange::Delete { .. } => 'D',
                FileChange::Update { .. } => 'M',
            };
            summary.push_str(&format!("{letter} {path}\n"));
        }
        summary
    } else {
        String::new()
    };
    EventMsg::PatchApplyEnd {
        call_id: call_id.to_string(),
        turn_id: turn_id.to_string(),
        stdout,
        stderr: match status {
            PatchApplyStatus::Failed => "the patch could not be applied".to_string(),
            _ => String::new(),
        },
        success,
        changes,
        status: match status {
            PatchApplyStatus::InProgress | PatchApplyStatus::Completed => "completed",
            PatchApplyStatus::Failed => "failed",
            PatchApplyStatus::Declined => "declined",
        }
        .to_string(),
    }
}

/// A file-change item's changes in Codex's first-generation form, by path.
pub fn file_changes(changes: &[FileUpdateChange]) -> BTreeMap<String, FileChange> {
    changes
        .iter()
        .map(|change| {
            let file_change = match &change.kind {
                PatchChangeKind::Add => FileChange::Add {
                    content: change.diff.clone(),
                },
                PatchChangeKind::Delete => FileChange::Delete {
                    content: change.diff.clone(),
                },
                PatchChangeKind::Update { move_path } => FileChange::Update {
                    unified_diff: change.diff.clone(),
                    move_path: move_path.clone(),
                },
            };
            (change.path.clone(), file_change)
        })
        .collect()
}

/// Command actions in Codex's first-generation form.
pub fn parsed_commands(actions: &[CommandAction]) -> Vec<ParsedCommand> {
    actions
        .iter()
        .map(|action| match action {
            CommandAction::Read {
                command,
                name,
                path,
            } => ParsedCommand::Read {
                cmd: command.clone(),
                name: name.clone(),
                path: path.clone(),
            },
            CommandAction::ListFiles { command, path } => ParsedCommand::ListFiles {
                cmd: command.clone(),
                path: path.clone(),
            },
            CommandAction::Search {
                command,
                query,
                path,
            } => ParsedCommand::Search {
                cmd: command.clone(),
                query: query.clone(),
                path: path.clone(),
            },
            CommandAction::Unknown { command } => ParsedCommand::Unknown {
                cmd: command.clone(),
            },
        })
        .collect()
}

/// A command-approval decision in Codex's form.
fn review_decision(decision: &CommandExecutionApprovalDecision) -> ReviewDecision {
    match decision {
        CommandExecutionApprovalDecision::Accept => {
            ReviewDecision::Named(ReviewDecisionName::Approved)
        }
        CommandExecutionApprovalDecision::AcceptForSession => {
            ReviewDecision::Named(ReviewDecisionName::ApprovedForSession)
        }
        CommandExecutionApprovalDecision::AcceptWithExecpolicyAmendment {
            execpolicy_amendment,
        } => ReviewDecision::Detailed(ReviewDecisionDetail::ApprovedExecpolicyAmendment {
            proposed_execpolicy_amendment: execpolicy_amendment.clone(),
        }),
        CommandExecutionApprovalDecision::Decline => {
            ReviewDecision::Named(ReviewDecisionName::Denied)
        }
        CommandExecutionApprovalDecision::Cancel => {
            ReviewDecision::Named(ReviewDecisionName::Abort)
        }
    }
}

fn token_usage(breakdown: &TokenUsageBreakdown) -> TokenUsage {
    TokenUsage {
        input_tokens: breakdown.input_tokens,
        cached_input_tokens: breakdown.cached_input_tokens,
        cache_write_input_tokens: breakdown.cache_write_input_tokens,
        output_tokens: breakdown.output_tokens,
        reasoning_output_tokens: breakdown.reasoning_output_tokens,
        total_tokens: breakdown.total_tokens,
    }
}

fn no_rate_limits() -> RateLimitSnapshot {
    RateLimitSnapshot {
        limit_id: Some("codex".to_string()),
        limit_name: None,
        primary: None,
        secondary: None,
        credits: None,
        individual_limit: None,
        spend_control_reached: None,
        plan_type: None,
        rate_limit_reached_type: None,
    }
}

/// The sandbox as Codex's permission profile, and the profile's name.
fn permission_profile(sandbox: &SandboxPolicy, cwd: &str) -> (serde_json::Value, &'static str) {
    let root_read = serde_json::json!({
        "path": {"type": "special", "value": {"kind": "root"}},
        "access": "read",
    });
    let network = |enabled: Option<bool>| {
        if enabled == Some(true) {
            "enabled"
        } else {
            "restricted"
        }
    };
    match sandbox {
        SandboxPolicy::ReadOnly { network_access } => (
            serde_json::json!({
                "type": "managed",
                "file_system": {"type": "restricted", "entries": [root_read]},
                "network": network(*network_access),
            }),
            ":read-only",
        ),
        SandboxPolicy::WorkspaceWrite {
            writable_roots,
            network_access,
            ..
        } => {
            let mut entries = vec![root_read];
            for root in
                std::iter::once(cwd.to_string()).chain(writable_roots.iter().flatten().cloned())
            {
                entries.push(serde_json::json!({
                    "path": {"type": "path", "value": root},
                    "access": "write",
                }));
            }
            (
                serde_json::json!({
                    "type": "managed",
                    "file_system": {"type": "restricted", "entries": entries},
                    "network": network(*network_access),
                }),
                ":workspace-write",
            )
        }
        SandboxPolicy::DangerFullAccess | SandboxPolicy::ExternalSandbox { .. } => (
            serde_json::json!({"type": "disabled"}),
            ":danger-full-access",
        ),
    }
}

#[cfg(test)]
#[path = "codex_events_tests.rs"]
mod tests;
