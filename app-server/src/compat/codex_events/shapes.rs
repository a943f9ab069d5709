//! The shapes of single Codex events and their fields: items, commands, patches, decisions,
//! token usage and permissions, built from the app-server's types.

use std::collections::BTreeMap;

use app_server_protocol::codex_event::{
    AgentMessageContent, EventDuration, EventMsg, PlanItem, RateLimitSnapshot, StepStatus,
    TokenUsage, TurnItem,
};
use app_server_protocol::item::{
    CommandAction, CommandExecutionSource, CommandExecutionStatus, FileUpdateChange,
    PatchApplyStatus, PatchChangeKind, ThreadItem, ThreadItemDetails, UserInput,
};
use app_server_protocol::legacy::{FileChange, ParsedCommand, ReviewDecision};
use app_server_protocol::legacy::{ReviewDecisionDetail, ReviewDecisionName};
use app_server_protocol::notifications::{TurnPlanStep, TurnPlanStepStatus};
use app_server_protocol::policy::SandboxPolicy;
use app_server_protocol::server_requests::CommandExecutionApprovalDecision;
use app_server_protocol::thread::TokenUsageBreakdown;

/// The Codex turn item for an item Codex reports with `item_started` / `item_completed`.
pub(super) fn turn_item(details: &ThreadItemDetails) -> Option<TurnItem> {
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

pub(super) fn user_message(content: &[UserInput]) -> EventMsg {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    let mut local_images = Vec::new();
    let mut audio = Vec::new();
    let mut local_audio = Vec::new();
    for input in content {
        match input {
            UserInput::Text { text, .. } => texts.push(text.as_str()),
            UserInput::Image { url, .. } => images.push(url.clone()),
            UserInput::LocalImage { path, .. } => local_images.push(path.clone()),
            UserInput::Audio { url, file_id } => {
                audio.extend(url.clone().or_else(|| file_id.clone()));
            }
            UserInput::LocalAudio { path } => local_audio.push(path.clone()),
            // Mentions and skills reach the model as context, not as the message's text.
            UserInput::Skill { .. } | UserInput::Mention { .. } => {}
        }
    }
    EventMsg::UserMessage {
        message: texts.join("\n"),
        images,
        local_images,
        audio,
        local_audio,
        text_elements: Vec::new(),
    }
}

/// A shell-joined command back to argv (the whole text when it does not parse).
pub(super) fn argv(display: &str) -> Vec<String> {
    shlex::split(display).unwrap_or_else(|| vec![display.to_string()])
}

/// Codex writes a command's cwd in begin/end events as a `file://` URL.
pub(super) fn cwd_url(cwd: &str) -> String {
    format!("file://{cwd}")
}

pub(super) fn source_name(source: CommandExecutionSource) -> String {
    match source {
        CommandExecutionSource::Agent => "agent",
        CommandExecutionSource::UserShell => "user_shell",
        CommandExecutionSource::UnifiedExecStartup => "unified_exec_startup",
        CommandExecutionSource::UnifiedExecInteraction => "unified_exec_interaction",
    }
    .to_string()
}

pub(super) fn exec_begin(turn_id: &str, item: &ThreadItem, started_at_ms: i64) -> EventMsg {
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

pub(super) fn exec_end(turn_id: &str, item: &ThreadItem, completed_at_ms: i64) -> EventMsg {
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

pub(super) fn patch_end(
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
pub(super) fn review_decision(decision: &CommandExecutionApprovalDecision) -> ReviewDecision {
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

pub(super) fn token_usage(breakdown: &TokenUsageBreakdown) -> TokenUsage {
    TokenUsage {
        input_tokens: breakdown.input_tokens,
        cached_input_tokens: breakdown.cached_input_tokens,
        cache_write_input_tokens: breakdown.cache_write_input_tokens,
        output_tokens: breakdown.output_tokens,
        reasoning_output_tokens: breakdown.reasoning_output_tokens,
        total_tokens: breakdown.total_tokens,
    }
}

pub(super) fn no_rate_limits() -> RateLimitSnapshot {
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
pub(super) fn permission_profile(
    sandbox: &SandboxPolicy,
    cwd: &str,
) -> (serde_json::Value, &'static str) {
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

/// A plan step as Codex's `plan_update` spells it (snake_case status).
pub(super) fn plan_item(step: &TurnPlanStep) -> PlanItem {
    PlanItem {
        step: step.step.clone(),
        status: match step.status {
            TurnPlanStepStatus::Pending => StepStatus::Pending,
            TurnPlanStepStatus::InProgress => StepStatus::InProgress,
            TurnPlanStepStatus::Completed => StepStatus::Completed,
        },
    }
}
