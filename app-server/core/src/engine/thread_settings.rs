//! `thread/settings/update`: a loaded thread's settings for its next turns, changed without a
//! turn, and the `thread/settings/updated` notification that reports them.
//!
//! On an idle thread the settings change at once and are recorded in its rollout (a
//! `settings` record), as `turn/start`'s overrides are. While a turn runs they wait in
//! `ThreadState::next_turn_settings`, so that the running turn keeps the sandbox, approval
//! policy and working directory it started with; the next `turn/start` takes them up.

use app_server_protocol::policy::{
    AskForApproval, CollaborationMode, CollaborationModeSettings, ModeKind, ReasoningEffort,
    ReasoningSummary, SandboxPolicy,
};
use app_server_protocol::thread::ThreadEnvironment;
use app_server_protocol::thread_settings::{
    ThreadSettings, ThreadSettingsUpdateParams, ThreadSettingsUpdatedNotification,
};

use crate::engine::owner::thread_not_found;
use crate::engine::settings::resolve_cwd;
use crate::engine::thread::ThreadState;
use crate::engine::{Engine, EngineError};
use crate::store::{RolloutRecord, ThreadMeta};
use crate::sync::lock;

/// Copies the settings fields of `next` (what `thread/settings/update` changes) into `meta`,
/// leaving the rest (preview, times, name…) as `meta` has it.
pub(super) fn adopt_settings(meta: &mut ThreadMeta, next: ThreadMeta) {
    meta.cwd = next.cwd;
    meta.model = next.model;
    meta.reasoning_effort = next.reasoning_effort;
    meta.reasoning_summary = next.reasoning_summary;
    meta.approval_policy = next.approval_policy;
    meta.sandbox = next.sandbox;
    meta.collaboration_mode = next.collaboration_mode;
}

impl Engine {
    /// `thread/settings/update`: the notification to send after the answer, `None` when no
    /// setting changed.
    pub async fn update_thread_settings(
        &self,
        params: ThreadSettingsUpdateParams,
    ) -> Result<Option<ThreadSettingsUpdatedNotification>, EngineError> {
        let owned = self
            .owned_thread(&params.thread_id, thread_not_found)
            .await?;
        let Some(thread) = owned.loaded().cloned() else {
            return Err(thread_not_found(owned.id()));
        };
        if params.permissions.is_some() && params.sandbox_policy.is_some() {
            return Err(EngineError::InvalidRequest(
                "`permissions` cannot be combined with `sandboxPolicy`".into(),
            ));
        }
        let mut state = lock(&thread.state);
        let mut current = state.meta.clone();
        if let Some(next) = state.next_turn_settings.clone() {
            adopt_settings(&mut current, next);
        }
        let mut meta = current.clone();
        SettingsOverrides {
            cwd: params.cwd.as_deref(),
            model: params.model.as_deref(),
            effort: params.effort,
            summary: params.summary,
            approval_policy: params.approval_policy,
            sandbox_policy: params.sandbox_policy.as_ref(),
            collaboration_mode: params.collaboration_mode.as_ref(),
        }
        .apply(&mut meta);
        // As at `turn/start`: a sandbox the client names, and the working directory, must
        // keep the thread's effective access within `clients.max_sandbox`.
        meta.sandbox = self
            .inner
            .access
            .admit(
                meta.sandbox.clone(),
                std::path::Path::new(&meta.cwd),
                params.sandbox_policy.is_some(),
            )
            .map_err(|error| EngineError::InvalidRequest(error.to_string()))?;
        let mut changed = meta != current;
        if let Some(reviewer) = params.approvals_reviewer
            && reviewer != state.approvals_reviewer
        {
            state.approvals_reviewer = reviewer;
            changed = true;
        }
        if let Some(tier) = params.service_tier
            && tier != state.service_tier
        {
            state.service_tier = tier;
            changed = true;
        }
        if !changed {
            return Ok(None);
        }
        if state.active.is_some() {
            state.next_turn_settings = Some(meta.clone());
        } else if meta != state.meta {
            state.meta = meta.clone();
            state.record(&RolloutRecord::Settings { meta: meta.clone() });
        }
        Ok(Some(ThreadSettingsUpdatedNotification {
            thread_id: thread.id.clone(),
            thread_settings: thread_settings(&state, &meta),
        }))
    }
}

impl Engine {
    /// The settings loaded thread `thread_id` starts its next turn with, as
    /// `thread/settings/updated` reports them; `None` when it is not loaded for the caller.
    pub fn next_turn_settings(&self, thread_id: &str) -> Option<ThreadSettingsUpdatedNotification> {
        let id = crate::engine::normalize_thread_id(thread_id).ok()?;
        let thread = self.thread(&id)?;
        let state = lock(&thread.state);
        let mut meta = state.meta.clone();
        if let Some(next) = state.next_turn_settings.clone() {
            adopt_settings(&mut meta, next);
        }
        Some(ThreadSettingsUpdatedNotification {
            thread_id: id,
            thread_settings: thread_settings(&state, &meta),
        })
    }
}

/// The settings a `turn/start` or a `thread/settings/update` names; each one given replaces
/// the thread's.
pub(crate) struct SettingsOverrides<'a> {
    pub cwd: Option<&'a str>,
    pub model: Option<&'a str>,
    pub effort: Option<ReasoningEffort>,
    pub summary: Option<ReasoningSummary>,
    pub approval_policy: Option<AskForApproval>,
    pub sandbox_policy: Option<&'a SandboxPolicy>,
    pub collaboration_mode: Option<&'a CollaborationMode>,
}

impl SettingsOverrides<'_> {
    /// Writes the settings given into `meta`.
    pub(crate) fn apply(&self, meta: &mut ThreadMeta) {
        if let Some(cwd) = self.cwd {
            meta.cwd = resolve_cwd(Some(cwd));
        }
        if let Some(model) = self.model {
            meta.model = model.to_string();
        }
        if let Some(effort) = self.effort {
            meta.reasoning_effort = Some(effort);
        }
        if let Some(summary) = self.summary {
            meta.reasoning_summary = Some(summary);
        }
        if let Some(approval) = self.approval_policy {
            meta.approval_policy = approval;
        }
        if let Some(sandbox) = self.sandbox_policy {
            meta.sandbox = sandbox.clone();
        }
        if let Some(mode) = self.collaboration_mode {
            meta.collaboration_mode = Some(mode.clone());
        }
    }
}

/// The settings `meta` gives the thread's next turn.
fn thread_settings(state: &ThreadState, meta: &ThreadMeta) -> ThreadSettings {
    let collaboration_mode = meta
        .collaboration_mode
        .clone()
        .unwrap_or_else(|| CollaborationMode {
            mode: ModeKind::Default,
            settings: CollaborationModeSettings {
                model: meta.model.clone(),
                reasoning_effort: meta.reasoning_effort,
                developer_instructions: None,
            },
        });
    ThreadSettings {
        disabled_plugin_ids: Vec::new(),
        cwd: meta.cwd.clone(),
        environments: Some(vec![ThreadEnvironment {
            environment_id: "local".into(),
            cwd: meta.cwd.clone(),
            runtime_workspace_roots: vec![meta.cwd.clone()],
        }]),
        approval_policy: meta.approval_policy,
        approvals_reviewer: state.approvals_reviewer,
        sandbox_policy: meta.sandbox.clone(),
        active_permission_profile: None,
        model: meta.model.clone(),
        model_provider: meta.model_provider.clone(),
        service_tier: state.service_tier.clone(),
        effort: meta.reasoning_effort,
        summary: meta.reasoning_summary,
        collaboration_mode,
        multi_agent_mode: "explicitRequestOnly".into(),
        personality: None,
    }
}
