//! A thread's goal: `thread/goal/set`, `thread/goal/get` and `thread/goal/clear`, and the
//! `thread/goal/updated` notification (`thread/goal/cleared` names only the thread).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The objective a thread works toward, kept with the thread (its rollout) across restarts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadGoal {
    /// The thread the goal belongs to.
    pub thread_id: String,
    /// What the thread works toward.
    pub objective: String,
    /// Where the goal stands.
    pub status: ThreadGoalStatus,
    /// The most tokens the goal may use, if the client set a budget.
    pub token_budget: Option<i64>,
    /// Tokens used toward the goal. Tandem does not count them yet: always 0.
    pub tokens_used: i64,
    /// Seconds spent on the goal. Tandem does not count them yet: always 0.
    pub time_used_seconds: i64,
    /// When the goal was set (Unix seconds).
    pub created_at: i64,
    /// When the goal last changed (Unix seconds).
    pub updated_at: i64,
}

/// Where a goal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadGoalStatus {
    /// Being worked on.
    Active,
    /// Set aside by the user.
    Paused,
    /// Waiting on something outside the thread.
    Blocked,
    /// Stopped by a usage limit.
    UsageLimited,
    /// Stopped by its token budget.
    BudgetLimited,
    /// Reached.
    Complete,
}

/// Who asked for a goal change: an explicit user action or the goal's own lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadGoalMutationOrigin {
    /// The user asked for it.
    User,
    /// The goal's own lifecycle changed it.
    Automatic,
}

/// Parameters of `thread/goal/set`: a new `objective` sets a new goal; without one, the
/// thread's goal is updated (and must exist).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadGoalSetParams {
    /// The thread; it must be loaded.
    pub thread_id: String,
    /// The objective; must not be empty. A different objective replaces the goal.
    #[serde(default)]
    pub objective: Option<String>,
    /// The new status (default `active` for a new goal).
    #[serde(default)]
    pub status: Option<ThreadGoalStatus>,
    /// The token budget (a new goal has none unless given).
    #[serde(default)]
    pub token_budget: Option<i64>,
    /// Who asks. Accepted and not acted on: a missing origin grants nothing.
    #[serde(default)]
    pub origin: Option<ThreadGoalMutationOrigin>,
}

/// Result of `thread/goal/set`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadGoalSetResponse {
    /// The goal after the change.
    pub goal: ThreadGoal,
}

/// Parameters of `thread/goal/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadGoalGetParams {
    /// The thread; it must be loaded.
    pub thread_id: String,
}

/// Result of `thread/goal/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadGoalGetResponse {
    /// The thread's goal; `null` when it has none.
    pub goal: Option<ThreadGoal>,
}

/// Parameters of `thread/goal/clear`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadGoalClearParams {
    /// The thread; it must be loaded.
    pub thread_id: String,
    /// Who asks. Accepted and not acted on.
    #[serde(default)]
    pub origin: Option<ThreadGoalMutationOrigin>,
}

/// Result of `thread/goal/clear`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadGoalClearResponse {
    /// Whether there was a goal to clear.
    pub cleared: bool,
}

/// `thread/goal/updated`: a thread's goal was set or changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadGoalUpdatedNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn that changed it; `null` for a client's `thread/goal/set` (and on resume).
    pub turn_id: Option<String>,
    /// The goal after the change.
    pub goal: ThreadGoal,
}
