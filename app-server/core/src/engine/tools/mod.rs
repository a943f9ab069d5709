//! Model tools inside the agent loop: which tools the model is offered, and what happens when
//! it calls one.
//!
//! Each tool lives in its own module as a [`Tool`](crate::tools::Tool) whose handler is an
//! `impl TurnTask` method, so that it can emit items, ask the user through the engine's
//! [`Approver`](crate::engine::approval::Approver) and record to the rollout like the rest of
//! the turn; [`registry`] lists them for the model and dispatches its calls. The mechanics (processes, the sandbox, the patch
//! format) live in [`crate::tools`] and [`crate::sandbox`]; this module decides *whether*
//! something may run and reports what happened.
//!
//! Every call gets exactly one output item, including declined, failed and unknown calls, so
//! the conversation stays valid for the next request (`model-wire.md` §2.8).

mod dialogs;
pub mod dynamic;
mod exec;
mod image;
mod mcp;
mod mcp_progress;
mod patch;
pub mod permissions;
mod plan;
pub mod policy;
mod query_project;
pub mod registry;
mod user_input;

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use app_server_protocol::item::{ThreadItem, ThreadItemDetails};
use app_server_protocol::notifications::{
    ItemCompletedNotification, ItemStartedNotification, ThreadStatusChangedNotification,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{ThreadActiveFlag, ThreadStatus};
use serde::de::DeserializeOwned;

use crate::clock::unix_millis;
use crate::engine::approval::{ApprovalReply, ApprovalRequest};
use crate::engine::turn::TurnTask;
use crate::model::ResponseItem;
use crate::store::RolloutRecord;
use crate::sync::lock;
use crate::tools::exec::unified::UnifiedExec;

pub use dialogs::DialogTools;
pub use registry::specs;

/// Tool state that outlives a turn: running commands and what the user approved for the
/// thread ("acceptForSession").
#[derive(Debug)]
pub struct ThreadTools {
    /// `exec_command` processes still running, for `write_stdin`.
    pub unified: UnifiedExec,
    /// Commands (argv) the user approved for the rest of the thread.
    pub approved_commands: Mutex<HashSet<Vec<String>>>,
    /// Paths the user approved patches to for the rest of the thread.
    pub approved_patch_paths: Mutex<HashSet<std::path::PathBuf>>,
    /// Tools the user approved for the rest of the thread with `acceptForSession`
    /// (`apply_patch`: later patches inside the thread's working directory are not asked about).
    pub approved_tools: Mutex<HashSet<String>>,
    /// What the client granted through `request_permissions`, for the turn or the thread.
    pub permission_grants: Mutex<permissions::PermissionGrants>,
    /// `commandExecution` items whose process was still running when `exec_command` returned,
    /// by unified-exec session id; a later `write_stdin` that sees the exit completes them.
    pub open_commands: Mutex<HashMap<i32, OpenCommand>>,
}

/// A `commandExecution` item waiting for its process to exit.
#[derive(Debug, Clone)]
pub struct OpenCommand {
    /// The turn that started it.
    pub turn_id: String,
    /// The item as started.
    pub item: ThreadItem,
    /// Output seen so far.
    pub output: String,
}

impl ThreadTools {
    /// No running commands, nothing approved.
    pub fn new() -> Self {
        Self {
            unified: UnifiedExec::new(),
            approved_commands: Mutex::new(HashSet::new()),
            approved_patch_paths: Mutex::new(HashSet::new()),
            approved_tools: Mutex::new(HashSet::new()),
            permission_grants: Mutex::new(permissions::PermissionGrants::default()),
            open_commands: Mutex::new(HashMap::new()),
        }
    }
}

impl Default for ThreadTools {
    fn default() -> Self {
        Self::new()
    }
}

/// What a tool call produced.
pub struct ToolOutcome {
    /// The output item for the model's history (one per call).
    pub output: ResponseItem,
    /// Items the call completed, for the turn's item list.
    pub items: Vec<ThreadItem>,
    /// The user cancelled, or the turn was interrupted while the call waited: the turn ends
    /// as interrupted after this call.
    pub interrupt: bool,
    /// History items that go after the output (an image the model asked to see).
    pub follow_up: Vec<ResponseItem>,
}

/// A tool call as the model sent it.
pub struct ToolCall {
    /// The call id the output must echo.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// The arguments (a JSON string) or, for freeform calls, the raw input.
    pub payload: String,
    /// Whether the call was freeform (`custom_tool_call`).
    pub freeform: bool,
}

impl ToolCall {
    /// The call in `item`, when it is one.
    pub fn from_item(item: &ResponseItem) -> Option<ToolCall> {
        match item {
            ResponseItem::FunctionCall {
                call_id,
                name,
                arguments,
                ..
            } => Some(ToolCall {
                call_id: call_id.clone(),
                name: name.clone(),
                payload: arguments.clone(),
                freeform: false,
            }),
            ResponseItem::CustomToolCall {
                call_id,
                name,
                input,
                ..
            } => Some(ToolCall {
                call_id: call_id.clone(),
                name: name.clone(),
                payload: input.clone(),
                freeform: true,
            }),
            _ => None,
        }
    }

    /// The output item answering this call with `text`.
    pub fn output(&self, text: impl Into<String>) -> ResponseItem {
        if self.freeform {
            ResponseItem::CustomToolCallOutput {
                call_id: self.call_id.clone(),
                output: text.into(),
            }
        } else {
            ResponseItem::FunctionCallOutput {
                call_id: self.call_id.clone(),
                output: text.into(),
            }
        }
    }

    /// An outcome that only answers the model.
    pub fn reply(&self, text: impl Into<String>) -> ToolOutcome {
        ToolOutcome {
            output: self.output(text),
            items: Vec::new(),
            interrupt: false,
            follow_up: Vec::new(),
        }
    }

    /// The arguments decoded as `T`, or the message the model gets when they do not parse. A
    /// freeform call's raw input is the tool's `input` argument (`apply_patch`).
    pub fn arguments<T: DeserializeOwned>(&self) -> Result<T, String> {
        let decoded = if self.freeform {
            serde_json::from_value(serde_json::json!({"input": self.payload}))
        } else {
            serde_json::from_str(&self.payload)
        };
        decoded.map_err(|error| format!("failed to parse function arguments: {error}"))
    }
}

impl TurnTask {
    /// Runs one tool call, between the hooks that guard it, and returns its output and items.
    pub async fn run_tool(&mut self, call: &ToolCall) -> ToolOutcome {
        self.run_hooked_tool(call).await
    }

    /// Runs one tool call without its hooks.
    pub(crate) async fn run_tool_unhooked(&mut self, call: &ToolCall) -> ToolOutcome {
        match registry::find(&call.name) {
            Some(tool) => tool.run(self, call).await,
            None => {
                if let Some((namespace, tool)) =
                    dynamic::resolve(&self.declared_tools(), &call.name)
                {
                    return self.dynamic_tool_call(call, namespace, tool).await;
                }
                match self.thread.mcp.resolve(&call.name) {
                    Some(tool) => self.mcp_tool_call(call, tool).await,
                    None => call.reply(format!("unsupported call: {}", call.name)),
                }
            }
        }
    }

    /// Emits `item/started` for `details` and returns the start time.
    pub async fn start_item(&self, details: ThreadItemDetails) -> ThreadItem {
        let now = unix_millis();
        let item = ThreadItem {
            details,
            started_at_ms: Some(now),
            completed_at_ms: None,
        };
        self.engine
            .sink
            .emit(ServerNotification::ItemStarted(ItemStartedNotification {
                item: item.clone(),
                thread_id: self.thread.id.clone(),
                turn_id: self.turn_id.clone(),
                started_at_ms: now,
            }))
            .await;
        item
    }

    /// Emits `item/completed` for `details` (started at `started`), records it in the rollout
    /// and returns the completed item.
    pub async fn complete_item(
        &self,
        started: &ThreadItem,
        details: ThreadItemDetails,
    ) -> ThreadItem {
        complete_item_of_turn(self, &self.turn_id, started, details).await
    }

    /// Sets the thread's active flags and announces the status.
    pub async fn set_waiting(&self, flag: Option<ThreadActiveFlag>) {
        let status = ThreadStatus::Active {
            active_flags: flag.into_iter().collect(),
        };
        lock(&self.thread.state).status = status.clone();
        self.engine
            .sink
            .emit(ServerNotification::ThreadStatusChanged(
                ThreadStatusChangedNotification {
                    thread_id: self.thread.id.clone(),
                    status,
                },
            ))
            .await;
    }

    /// Asks the user through the engine's approver; the turn's cancellation withdraws it.
    pub async fn ask(&self, request: ApprovalRequest) -> ApprovalReply {
        let reply = self
            .engine
            .approver
            .request(request.clone(), self.cancel.clone())
            .await;
        self.engine
            .audit(&crate::audit::AuditEvent::approval(&request, &reply));
        reply
    }

    /// Adds `item` to the model-visible history and the rollout.
    pub fn record_history(&self, item: ResponseItem) {
        let mut state = lock(&self.thread.state);
        state.history.push(item.clone());
        state.record(&RolloutRecord::ResponseItem {
            turn_id: self.turn_id.clone(),
            item,
        });
    }
}

/// Completes an item that may belong to an earlier turn of the thread (a command that outlived
/// its `exec_command` call).
async fn complete_item_of_turn(
    task: &TurnTask,
    turn_id: &str,
    started: &ThreadItem,
    details: ThreadItemDetails,
) -> ThreadItem {
    let now = unix_millis();
    let item = ThreadItem {
        details,
        started_at_ms: started.started_at_ms,
        completed_at_ms: Some(now),
    };
    lock(&task.thread.state).record(&RolloutRecord::Item {
        turn_id: turn_id.to_string(),
        item: item.clone(),
    });
    task.engine
        .sink
        .emit(ServerNotification::ItemCompleted(
            ItemCompletedNotification {
                item: item.clone(),
                thread_id: task.thread.id.clone(),
                turn_id: turn_id.to_string(),
                content_token_count: None,
                completed_at_ms: now,
            },
        ))
        .await;
    item
}
