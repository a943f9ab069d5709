//! `thread/settings/update`: change a loaded thread's settings for its next turns without
//! starting one, and the `thread/settings/updated` notification that reports them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::config_requests::double_option;
use crate::policy::{
    ApprovalsReviewer, AskForApproval, CollaborationMode, Personality, ReasoningEffort,
    ReasoningSummary, SandboxPolicy,
};
use crate::thread::ThreadEnvironment;

/// Parameters of `thread/settings/update`. Every setting left out (or `null`) stays as it
/// is; the thread's running turn, if any, keeps the settings it started with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadSettingsUpdateParams {
    /// The thread; it must be loaded.
    pub thread_id: String,
    /// The approval policy of the next turns.
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    /// Who reviews approvals; stored and reported, approvals still go to the client.
    #[serde(default)]
    pub approvals_reviewer: Option<ApprovalsReviewer>,
    /// The collaboration mode of the next turns.
    #[serde(default)]
    pub collaboration_mode: Option<CollaborationMode>,
    /// The working directory of the next turns; a relative one is resolved against the
    /// server's working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Plugins to disable. Accepted and ignored: Tandem has no plugins.
    #[serde(default)]
    pub disabled_plugin_ids: Option<Vec<String>>,
    /// The reasoning effort of the next turns.
    #[serde(default)]
    pub effort: Option<ReasoningEffort>,
    /// Execution environments. Accepted and ignored: Tandem runs every turn locally.
    #[serde(default)]
    #[ts(type = "Array<unknown> | null")]
    pub environments: Option<Vec<serde_json::Value>>,
    /// The model of the next turns.
    #[serde(default)]
    pub model: Option<String>,
    /// Deprecated; accepted and ignored.
    #[serde(default)]
    pub multi_agent_mode: Option<String>,
    /// A permission profile id. Accepted and ignored (Tandem names sandboxes with
    /// `sandboxPolicy`), but refused together with `sandboxPolicy`, as the reference does.
    #[serde(default)]
    pub permissions: Option<String>,
    /// Deprecated; accepted and ignored.
    #[serde(default)]
    pub personality: Option<Personality>,
    /// The sandbox of the next turns, within the operator's `clients.max_sandbox`.
    #[serde(default)]
    pub sandbox_policy: Option<SandboxPolicy>,
    /// The service tier: left out keeps it, `null` clears it. Reported back, never sent to
    /// the provider.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[ts(optional, type = "string | null")]
    #[schemars(with = "Option<String>")]
    pub service_tier: Option<Option<String>>,
    /// The reasoning summary of the next turns.
    #[serde(default)]
    pub summary: Option<ReasoningSummary>,
}

/// Result of `thread/settings/update` (empty); `thread/settings/updated` follows when a
/// setting changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ThreadSettingsUpdateResponse {}

/// The settings a thread's next turn starts with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSettings {
    /// Plugins disabled for the thread; always empty in Tandem.
    pub disabled_plugin_ids: Vec<String>,
    /// The working directory (absolute).
    pub cwd: String,
    /// The environments of the next turns: the local one, in the working directory.
    pub environments: Option<Vec<ThreadEnvironment>>,
    /// The approval policy.
    pub approval_policy: AskForApproval,
    /// Who reviews approvals.
    pub approvals_reviewer: ApprovalsReviewer,
    /// The sandbox, in object form.
    pub sandbox_policy: SandboxPolicy,
    /// The active permission profile; always `null` in Tandem.
    pub active_permission_profile: Option<serde_json::Value>,
    /// The model.
    pub model: String,
    /// The model provider (a key of `model_providers`).
    pub model_provider: String,
    /// The service tier last set, never sent to the provider.
    pub service_tier: Option<String>,
    /// The reasoning effort.
    pub effort: Option<ReasoningEffort>,
    /// The reasoning summary.
    pub summary: Option<ReasoningSummary>,
    /// The collaboration mode; `default` with the thread's model and effort unless one was
    /// chosen.
    pub collaboration_mode: CollaborationMode,
    /// Deprecated; always `explicitRequestOnly`.
    pub multi_agent_mode: String,
    /// Deprecated; always `null` in Tandem.
    pub personality: Option<Personality>,
}

/// `thread/settings/updated`: a thread's settings changed (`thread/settings/update`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSettingsUpdatedNotification {
    /// The thread.
    pub thread_id: String,
    /// Its settings now.
    pub thread_settings: ThreadSettings,
}
