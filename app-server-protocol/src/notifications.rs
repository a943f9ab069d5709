//! Params of server notifications.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::item::ThreadItem;
use crate::jsonrpc::RequestId;
use crate::thread::{Thread, ThreadStatus, ThreadTokenUsage, Turn, TurnError};
use crate::utility::CommandExecOutputStream;

/// `thread/started`: a thread was created (start or fork).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ThreadStartedNotification {
    /// The new thread.
    pub thread: Thread,
}

/// `thread/status/changed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadStatusChangedNotification {
    /// The thread.
    pub thread_id: String,
    /// Its new status.
    pub status: ThreadStatus,
}

/// Notifications that only name a thread (`thread/archived`, `thread/unarchived`,
/// `thread/deleted`, `thread/reverted`, `thread/closed`, `thread/goal/cleared`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadIdNotification {
    /// The thread.
    pub thread_id: String,
}

/// `thread/name/updated`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadNameUpdatedNotification {
    /// The thread.
    pub thread_id: String,
    /// Its new name.
    #[serde(default)]
    pub thread_name: Option<String>,
}

/// `thread/tokenUsage/updated`: sent after each model response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadTokenUsageUpdatedNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// Cumulative and last usage.
    pub token_usage: ThreadTokenUsage,
}

/// `turn/started` and `turn/completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn; in `turn/completed`, its final status.
    pub turn: Turn,
}

/// `turn/diff/updated`: the aggregated diff of the turn's file changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnDiffUpdatedNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// `git diff`-style unified diff of every file the turn changed.
    pub diff: String,
}

/// `turn/plan/updated`: the agent's plan changed (`update_plan`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnPlanUpdatedNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// Why the plan changed.
    #[serde(default)]
    pub explanation: Option<String>,
    /// The steps.
    pub plan: Vec<TurnPlanStep>,
}

/// One step of a plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct TurnPlanStep {
    /// What to do.
    pub step: String,
    /// How far along it is.
    pub status: TurnPlanStepStatus,
}

/// Status of a plan step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum TurnPlanStepStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// `item/started`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ItemStartedNotification {
    /// The item in its initial state.
    pub item: ThreadItem,
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// When the item started (Unix milliseconds).
    pub started_at_ms: i64,
}

/// `item/completed`: the authoritative final state of an item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ItemCompletedNotification {
    /// The item in its final state.
    pub item: ThreadItem,
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// Token count of the item's content, when known.
    #[serde(default)]
    pub content_token_count: Option<u64>,
    /// When the item completed (Unix milliseconds).
    pub completed_at_ms: i64,
}

/// Text deltas of an item (`item/agentMessage/delta`, `item/commandExecution/outputDelta`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ItemDeltaNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The item.
    pub item_id: String,
    /// The text to append.
    pub delta: String,
}

/// `item/reasoning/summaryTextDelta`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningSummaryTextDeltaNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The reasoning item.
    pub item_id: String,
    /// The text to append.
    pub delta: String,
    /// Which summary part it belongs to.
    pub summary_index: i64,
}

/// `item/reasoning/summaryPartAdded`: a new summary part begins.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningSummaryPartAddedNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The reasoning item.
    pub item_id: String,
    /// Index of the new part.
    pub summary_index: i64,
}

/// `item/reasoning/textDelta`: raw reasoning text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningTextDeltaNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The reasoning item.
    pub item_id: String,
    /// The text to append.
    pub delta: String,
    /// Which content part it belongs to.
    pub content_index: i64,
}

/// `serverRequest/resolved`: a server request was answered or cleaned up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerRequestResolvedNotification {
    /// The thread.
    pub thread_id: String,
    /// Id of the server request.
    pub request_id: RequestId,
}

/// `error`: a turn hit an error (before its failing `turn/completed`, or while retrying).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ErrorNotification {
    /// What went wrong.
    pub error: TurnError,
    /// Whether the server retries.
    pub will_retry: bool,
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
}

/// `warning`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct WarningNotification {
    /// The thread concerned, if any.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// The warning.
    pub message: String,
}

/// `configWarning`: a problem with the configuration that did not stop the server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ConfigWarningNotification {
    /// One-line summary.
    pub summary: String,
    /// More detail.
    #[serde(default)]
    pub details: Option<String>,
}

/// `deprecationNotice`: the client used something deprecated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct DeprecationNoticeNotification {
    /// One-line summary.
    pub summary: String,
    /// More detail.
    #[serde(default)]
    pub details: Option<String>,
}

/// `command/exec/outputDelta`: a chunk of a streaming `command/exec`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommandExecOutputDeltaNotification {
    /// The command's `processId`.
    pub process_id: String,
    /// Which stream.
    pub stream: CommandExecOutputStream,
    /// The bytes, base64-encoded.
    pub delta_base64: String,
    /// Whether the output cap was reached (later output is dropped).
    pub cap_reached: bool,
}

/// `thread/compacted`: a thread's history was compacted, by `thread/compact/start` or
/// automatically during a turn. It follows the `contextCompaction` item's `item/completed`,
/// which carries the same news; it is kept for clients written before that item existed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ContextCompactedNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn that compacted it.
    pub turn_id: String,
}

/// `item/commandExecution/terminalInteraction`: the model wrote to (or polled) a command it
/// left running (`write_stdin`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TerminalInteractionNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn in which the model wrote.
    pub turn_id: String,
    /// The `commandExecution` item of the running command.
    pub item_id: String,
    /// The command's session id, as the model names it.
    pub process_id: String,
    /// What was written to its stdin; empty for a poll.
    pub stdin: String,
}
