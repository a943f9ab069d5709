//! The events of `tandem exec --json`, in the reference's shapes (`codex exec --json`, read by
//! the official SDKs), and the mapping from the engine's notifications to them.
//!
//! The reference numbers items `item_0`, `item_1`, … in the order it first shows them; agent
//! messages, reasoning and file changes appear once, completed; commands and MCP tool calls
//! appear when they start and again when they end; the plan is one `todo_list` item, started at
//! the first plan, updated at each later one and completed when the turn ends.

use std::collections::HashMap;

use app_server_protocol::item::{
    CommandExecutionStatus, PatchApplyStatus, PatchChangeKind, ThreadItem, ThreadItemDetails,
};
use app_server_protocol::mcp_servers::McpToolCallStatus;
use app_server_protocol::notifications::{TurnPlanStepStatus, TurnPlanUpdatedNotification};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{TokenUsageBreakdown, TurnStatus};
use serde::Serialize;

/// One line of `--json` output.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum ExecEvent {
    /// The thread of the run (new or resumed); always the first event.
    #[serde(rename = "thread.started")]
    ThreadStarted {
        /// The thread's id, which `tandem exec resume` takes.
        thread_id: String,
    },
    /// The turn started.
    #[serde(rename = "turn.started")]
    TurnStarted {},
    /// The turn completed, with the tokens it used.
    #[serde(rename = "turn.completed")]
    TurnCompleted {
        /// Tokens of every model request of the turn.
        usage: Usage,
    },
    /// The turn failed or was interrupted.
    #[serde(rename = "turn.failed")]
    TurnFailed {
        /// Why.
        error: ErrorMessage,
    },
    /// An item started.
    #[serde(rename = "item.started")]
    ItemStarted {
        /// The item.
        item: ExecItem,
    },
    /// An item changed (the plan).
    #[serde(rename = "item.updated")]
    ItemUpdated {
        /// The item.
        item: ExecItem,
    },
    /// An item ended.
    #[serde(rename = "item.completed")]
    ItemCompleted {
        /// The item.
        item: ExecItem,
    },
    /// An error of the run (a failed model request, a retry).
    #[serde(rename = "error")]
    Error {
        /// What went wrong.
        message: String,
    },
}

/// Tokens used by a turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: i64,
    /// Prompt tokens served from the provider's cache.
    pub cached_input_tokens: i64,
    /// Prompt tokens written to the provider's cache.
    pub cache_write_input_tokens: i64,
    /// Generated tokens.
    pub output_tokens: i64,
    /// Generated reasoning tokens.
    pub reasoning_output_tokens: i64,
}

/// `{"message": …}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorMessage {
    /// The message.
    pub message: String,
}

/// An item of the run, with its run-local id.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExecItem {
    /// `item_N`.
    pub id: String,
    /// The kind and content.
    #[serde(flatten)]
    pub details: ExecItemDetails,
}

/// The kinds of items.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExecItemDetails {
    /// The agent's message (JSON text under `--output-schema`).
    AgentMessage {
        /// The text.
        text: String,
    },
    /// The model's reasoning summary.
    Reasoning {
        /// The text.
        text: String,
    },
    /// A command the agent ran (or was refused).
    CommandExecution {
        /// The command line.
        command: String,
        /// Its stdout and stderr.
        aggregated_output: String,
        /// Its exit code; `null` until it exits.
        exit_code: Option<i32>,
        /// `in_progress`, `completed`, `failed` or `declined`.
        status: &'static str,
    },
    /// Files the agent changed.
    FileChange {
        /// Each file.
        changes: Vec<FileChange>,
        /// `completed` or `failed`.
        status: &'static str,
    },
    /// A call of an MCP server's tool.
    McpToolCall {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Its arguments.
        arguments: serde_json::Value,
        /// Its result, once it succeeded.
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<McpResult>,
        /// Its error, once it failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ErrorMessage>,
        /// `in_progress`, `completed` or `failed`.
        status: &'static str,
    },
    /// The agent's plan.
    TodoList {
        /// The steps.
        items: Vec<TodoItem>,
    },
    /// A warning that did not stop the turn.
    Error {
        /// The warning.
        message: String,
    },
}

/// One file of a `file_change`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileChange {
    /// The file.
    pub path: String,
    /// `add`, `delete` or `update`.
    pub kind: &'static str,
}

/// The result of an MCP tool call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct McpResult {
    /// The content blocks.
    pub content: Vec<serde_json::Value>,
    /// The structured content, if any.
    pub structured_content: serde_json::Value,
}

/// A step of the plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TodoItem {
    /// The step.
    pub text: String,
    /// Whether it is done.
    pub completed: bool,
}

/// How the turn ended.
#[derive(Clone, Debug, PartialEq)]
pub enum TurnEnd {
    /// It completed.
    Completed,
    /// It failed or was interrupted; the message says why.
    Failed(String),
}

/// Turns the engine's notifications about one thread into [`ExecEvent`]s.
pub struct EventMapper {
    thread_id: String,
    next_item: u64,
    /// Run-local ids of the engine's items.
    ids: HashMap<String, String>,
    /// The plan's item, once there is one.
    todo: Option<ExecItem>,
    usage: Usage,
    last_error: Option<String>,
    /// The text of the last agent message.
    pub last_message: Option<String>,
    /// How the turn ended, once it has.
    pub end: Option<TurnEnd>,
}

impl EventMapper {
    /// A mapper for `thread_id`'s notifications.
    pub fn new(thread_id: String) -> EventMapper {
        EventMapper {
            thread_id,
            next_item: 0,
            ids: HashMap::new(),
            todo: None,
            usage: Usage::default(),
            last_error: None,
            last_message: None,
            end: None,
        }
    }

    /// The events one notification becomes (none for most of them).
    pub fn map(&mut self, notification: &ServerNotification) -> Vec<ExecEvent> {
        match notification {
            ServerNotification::TurnStarted(turn) if turn.thread_id == self.thread_id => {
                vec![ExecEvent::TurnStarted {}]
            }
            ServerNotification::ItemStarted(started) if started.thread_id == self.thread_id => self
                .item(&started.item, false)
                .map(|item| ExecEvent::ItemStarted { item })
                .into_iter()
                .collect(),
            ServerNotification::ItemCompleted(completed)
                if completed.thread_id == self.thread_id =>
            {
                self.item(&completed.item, true)
                    .map(|item| ExecEvent::ItemCompleted { item })
                    .into_iter()
                    .collect()
            }
            ServerNotification::TurnPlanUpdated(plan) if plan.thread_id == self.thread_id => {
                vec![self.plan(plan)]
            }
            ServerNotification::ThreadTokenUsageUpdated(usage)
                if usage.thread_id == self.thread_id =>
            {
                self.add_usage(&usage.token_usage.last);
                Vec::new()
            }
            ServerNotification::Error(error) if error.thread_id == self.thread_id => {
                if !error.will_retry {
                    self.last_error = Some(error.error.message.clone());
                }
                vec![ExecEvent::Error {
                    message: error.error.message.clone(),
                }]
            }
            ServerNotification::Warning(warning)
                if warning
                    .thread_id
                    .as_ref()
                    .is_none_or(|id| *id == self.thread_id) =>
            {
                vec![self.warning(warning.message.clone())]
            }
            ServerNotification::ConfigWarning(warning) => {
                vec![self.warning(with_details(&warning.summary, &warning.details))]
            }
            ServerNotification::TurnCompleted(turn) if turn.thread_id == self.thread_id => {
                self.turn_completed(&turn.turn.status, turn.turn.error.as_ref())
            }
            _ => Vec::new(),
        }
    }

    fn turn_completed(
        &mut self,
        status: &TurnStatus,
        error: Option<&app_server_protocol::thread::TurnError>,
    ) -> Vec<ExecEvent> {
        let mut events = Vec::new();
        if let Some(todo) = self.todo.take() {
            events.push(ExecEvent::ItemCompleted { item: todo });
        }
        let end = match status {
            TurnStatus::Completed | TurnStatus::InProgress => TurnEnd::Completed,
            TurnStatus::Interrupted => TurnEnd::Failed("turn interrupted".to_string()),
            TurnStatus::Failed => TurnEnd::Failed(
                error
                    .map(|error| error.message.clone())
                    .or_else(|| self.last_error.clone())
                    .unwrap_or_else(|| "turn failed".to_string()),
            ),
        };
        events.push(match &end {
            TurnEnd::Completed => ExecEvent::TurnCompleted { usage: self.usage },
            TurnEnd::Failed(message) => ExecEvent::TurnFailed {
                error: ErrorMessage {
                    message: message.clone(),
                },
            },
        });
        self.end = Some(end);
        events
    }

    /// A warning item of its own.
    pub fn warning(&mut self, message: String) -> ExecEvent {
        let id = self.new_id();
        ExecEvent::ItemCompleted {
            item: ExecItem {
                id,
                details: ExecItemDetails::Error { message },
            },
        }
    }

    fn new_id(&mut self) -> String {
        let id = format!("item_{}", self.next_item);
        self.next_item += 1;
        id
    }

    fn id_of(&mut self, engine_id: &str) -> String {
        if let Some(id) = self.ids.get(engine_id) {
            return id.clone();
        }
        let id = self.new_id();
        self.ids.insert(engine_id.to_string(), id.clone());
        id
    }

    fn add_usage(&mut self, last: &TokenUsageBreakdown) {
        self.usage.input_tokens += last.input_tokens;
        self.usage.cached_input_tokens += last.cached_input_tokens;
        self.usage.cache_write_input_tokens += last.cache_write_input_tokens;
        self.usage.output_tokens += last.output_tokens;
        self.usage.reasoning_output_tokens += last.reasoning_output_tokens;
    }

    fn plan(&mut self, plan: &TurnPlanUpdatedNotification) -> ExecEvent {
        let items = plan
            .plan
            .iter()
            .map(|step| TodoItem {
                text: step.step.clone(),
                completed: step.status == TurnPlanStepStatus::Completed,
            })
            .collect();
        match &mut self.todo {
            Some(todo) => {
                todo.details = ExecItemDetails::TodoList { items };
                ExecEvent::ItemUpdated { item: todo.clone() }
            }
            None => {
                let item = ExecItem {
                    id: self.new_id(),
                    details: ExecItemDetails::TodoList { items },
                };
                self.todo = Some(item.clone());
                ExecEvent::ItemStarted { item }
            }
        }
    }

    /// The exec item of an engine item, or `None` for kinds the reference does not show (or
    /// shows only once completed, when `completed` is false).
    fn item(&mut self, item: &ThreadItem, completed: bool) -> Option<ExecItem> {
        let (engine_id, details) = match &item.details {
            ThreadItemDetails::AgentMessage { id, text, .. } if completed => {
                self.last_message = Some(text.clone());
                (id, ExecItemDetails::AgentMessage { text: text.clone() })
            }
            ThreadItemDetails::Reasoning {
                id,
                summary,
                content,
            } if completed => {
                let parts = if summary.is_empty() { content } else { summary };
                let text = parts.join("\n\n");
                if text.trim().is_empty() {
                    return None;
                }
                (id, ExecItemDetails::Reasoning { text })
            }
            ThreadItemDetails::CommandExecution {
                id,
                command,
                status,
                aggregated_output,
                exit_code,
                ..
            } => (
                id,
                ExecItemDetails::CommandExecution {
                    command: command.clone(),
                    aggregated_output: aggregated_output.clone().unwrap_or_default(),
                    exit_code: *exit_code,
                    status: match status {
                        CommandExecutionStatus::InProgress => "in_progress",
                        CommandExecutionStatus::Completed => "completed",
                        CommandExecutionStatus::Failed => "failed",
                        CommandExecutionStatus::Declined => "declined",
                    },
                },
            ),
            ThreadItemDetails::FileChange {
                id,
                changes,
                status,
            } if completed => (
                id,
                ExecItemDetails::FileChange {
                    changes: changes
                        .iter()
                        .map(|change| FileChange {
                            path: change.path.clone(),
                            kind: match change.kind {
                                PatchChangeKind::Add => "add",
                                PatchChangeKind::Delete => "delete",
                                PatchChangeKind::Update { .. } => "update",
                            },
                        })
                        .collect(),
                    status: match status {
                        PatchApplyStatus::Completed => "completed",
                        PatchApplyStatus::InProgress
                        | PatchApplyStatus::Failed
                        | PatchApplyStatus::Declined => "failed",
                    },
                },
            ),
            ThreadItemDetails::McpToolCall {
                id,
                server,
                tool,
                status,
                arguments,
                result,
                error,
                ..
            } => (
                id,
                ExecItemDetails::McpToolCall {
                    server: server.clone(),
                    tool: tool.clone(),
                    arguments: arguments.clone(),
                    result: result.as_ref().map(|result| McpResult {
                        content: result.content.clone(),
                        structured_content: result
                            .structured_content
                            .clone()
                            .unwrap_or(serde_json::Value::Null),
                    }),
                    error: error.as_ref().map(|error| ErrorMessage {
                        message: error.message.clone(),
                    }),
                    status: match status {
                        McpToolCallStatus::InProgress => "in_progress",
                        McpToolCallStatus::Completed => "completed",
                        McpToolCallStatus::Failed => "failed",
                    },
                },
            ),
            _ => return None,
        };
        Some(ExecItem {
            id: self.id_of(engine_id),
            details,
        })
    }
}

fn with_details(summary: &str, details: &Option<String>) -> String {
    match details {
        Some(details) if !details.is_empty() => format!("{summary}: {details}"),
        _ => summary.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_have_the_reference_shapes() {
        let events = [
            ExecEvent::ThreadStarted {
                thread_id: "t".into(),
            },
            ExecEvent::TurnStarted {},
            ExecEvent::ItemCompleted {
                item: ExecItem {
                    id: "item_0".into(),
                    details: ExecItemDetails::CommandExecution {
                        command: "ls".into(),
                        aggregated_output: String::new(),
                        exit_code: None,
                        status: "in_progress",
                    },
                },
            },
            ExecEvent::TurnCompleted {
                usage: Usage::default(),
            },
        ];
        let lines: Vec<String> = events
            .iter()
            .map(|event| serde_json::to_string(event).unwrap_or_default())
            .collect();
        assert_eq!(
            lines,
            [
                r#"{"type":"thread.started","thread_id":"t"}"#,
                r#"{"type":"turn.started"}"#,
                r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
                r#"{"type":"turn.completed","usage":{"input_tokens":0,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0}}"#,
            ]
        );
    }
}
