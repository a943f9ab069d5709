//! The notifications that report an item's progress while it runs, beyond its text deltas:
//! `item/plan/delta` (a plan-mode turn's proposed plan), `item/fileChange/patchUpdated`
//! (the changes of a patch as they become known) and `item/mcpToolCall/progress` (what an MCP
//! server says about a call it is running).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::item::FileUpdateChange;

/// `item/plan/delta`: text appended to the `plan` item of a plan-mode turn, read from the
/// model's `<proposed_plan>` block as it streams. The completed item's `text` is the plan as
/// finally parsed; the deltas are for display while it arrives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanDeltaNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The `plan` item (`<turn id>-plan`).
    pub item_id: String,
    /// Text appended to the plan.
    pub delta: String,
}

/// `item/fileChange/patchUpdated`: the changes of a `fileChange` item as known so far, whole
/// (each notification replaces the previous list).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileChangePatchUpdatedNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The `fileChange` item.
    pub item_id: String,
    /// Every change of the patch known so far.
    pub changes: Vec<FileUpdateChange>,
}

/// `item/mcpToolCall/progress`: an MCP server reported progress on a tool call of an
/// `mcpToolCall` item (its `notifications/progress`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpToolCallProgressNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The `mcpToolCall` item.
    pub item_id: String,
    /// The server's progress message, or its progress as `progress/total` when it sent no
    /// message; cut to a bounded length.
    pub message: String,
}
