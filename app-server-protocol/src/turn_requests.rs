//! Params and responses of the `turn/*` methods.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::item::UserInput;
use crate::policy::{
    ApprovalsReviewer, AskForApproval, CollaborationMode, Personality, ReasoningEffort,
    ReasoningSummary, SandboxPolicy,
};
use crate::thread::Turn;

/// Parameters of `turn/start`. Overrides apply to this turn and persist for later turns,
/// except `outputSchema`, which applies to this turn only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct TurnStartParams {
    /// Thread to run the turn on.
    pub thread_id: String,
    /// The user's input; `[]` runs a turn without a user message.
    pub input: Vec<UserInput>,
    /// Client-chosen id echoed as the user message's `clientId`.
    #[serde(default)]
    pub client_user_message_id: Option<String>,
    /// Working-directory override.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Approval-policy override.
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    /// Reviewer override. Stored for the thread and echoed; approvals still go to the client
    /// whatever it says.
    #[serde(default)]
    pub approvals_reviewer: Option<ApprovalsReviewer>,
    /// Sandbox override, in object form.
    #[serde(default)]
    pub sandbox_policy: Option<SandboxPolicy>,
    /// Model override.
    #[serde(default)]
    pub model: Option<String>,
    /// Service-tier override. Accepted and ignored: Tandem has no service tiers.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// Reasoning-effort override.
    #[serde(default)]
    pub effort: Option<ReasoningEffort>,
    /// Reasoning-summary override.
    #[serde(default)]
    pub summary: Option<ReasoningSummary>,
    /// Deprecated; accepted and ignored.
    #[serde(default)]
    pub personality: Option<Personality>,
    /// JSON Schema the final answer must follow (this turn only).
    #[serde(default)]
    pub output_schema: Option<serde_json::Value>,
    /// Collaboration mode for this and later turns. @experimental
    #[serde(default)]
    pub collaboration_mode: Option<CollaborationMode>,
}

/// Result of `turn/start`: the turn, `inProgress`, before it starts streaming.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnStartResponse {
    /// The turn (`items: []`, `startedAt: null`); on a busy thread, the running turn.
    pub turn: Turn,
}

/// Parameters of `turn/steer`: add input to the running turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct TurnSteerParams {
    /// The thread.
    pub thread_id: String,
    /// Additional input.
    pub input: Vec<UserInput>,
    /// Id of the turn the client believes is running.
    pub expected_turn_id: String,
    /// Client-chosen id echoed as the user message's `clientId`.
    #[serde(default)]
    pub client_user_message_id: Option<String>,
}

/// Result of `turn/steer`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnSteerResponse {
    /// The running turn.
    pub turn_id: String,
}

/// Parameters of `turn/interrupt`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnInterruptParams {
    /// The thread.
    pub thread_id: String,
    /// The running turn.
    pub turn_id: String,
}
