//! Params and responses of the `thread/*` methods.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::dynamic_tools::DynamicToolSpec;
use crate::policy::{
    ApprovalsReviewer, AskForApproval, CollaborationMode, Personality, ReasoningEffort,
    SandboxMode, SandboxPolicy, SortDirection,
};
use crate::thread::{Thread, Turn, TurnItemsView};
use crate::thread_read_state::ThreadReadState;

/// Parameters of `thread/start`. Every field is optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadStartParams {
    /// Model slug; defaults to the configured model.
    #[serde(default)]
    pub model: Option<String>,
    /// Model provider id; unknown ids are rejected.
    #[serde(default)]
    pub model_provider: Option<String>,
    /// Service tier. Accepted and echoed in the response, but never sent to the provider:
    /// Tandem has no service tiers, so it has no effect.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// Working directory; a relative path is resolved against the server's cwd.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Approval policy for the thread.
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    /// Who reviews approvals. Stored and echoed, but every approval still goes to the client:
    /// Tandem has no automatic reviewer, so `auto_review` has no effect.
    #[serde(default)]
    pub approvals_reviewer: Option<ApprovalsReviewer>,
    /// Sandbox mode for the thread.
    #[serde(default)]
    pub sandbox: Option<SandboxMode>,
    /// Config overrides (dotted keys of config.toml) for this thread.
    #[serde(default)]
    pub config: Option<BTreeMap<String, serde_json::Value>>,
    /// Service name. Accepted and ignored: Tandem reports no service name to the provider.
    #[serde(default)]
    pub service_name: Option<String>,
    /// Replaces the built-in base instructions.
    #[serde(default)]
    pub base_instructions: Option<String>,
    /// Extra developer instructions.
    #[serde(default)]
    pub developer_instructions: Option<String>,
    /// Deprecated; accepted and ignored.
    #[serde(default)]
    pub personality: Option<Personality>,
    /// Ephemeral threads are never written to disk.
    #[serde(default)]
    pub ephemeral: Option<bool>,
    /// Why the session started. Accepted and ignored.
    #[serde(default)]
    pub session_start_source: Option<ThreadStartSource>,
    /// Free-form label stored as `thread.threadSource`.
    #[serde(default)]
    pub thread_source: Option<String>,
    /// Asks the reference server to record extra event kinds in the rollout. Accepted and
    /// ignored: Tandem's rollout always records every completed item. `true` requires
    /// `capabilities.experimentalApi`. @experimental
    #[serde(default)]
    pub persist_extended_history: Option<bool>,
    /// Tools the client offers the model for the whole thread (kept across resumes); the
    /// model's calls come back as `item/tool/call` requests. Names follow the Responses API
    /// (letters, digits, `_`, `-`) and must not repeat or take a name Tandem's own tools use.
    /// @experimental
    #[serde(default)]
    pub dynamic_tools: Option<Vec<DynamicToolSpec>>,
}

/// Why a session started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadStartSource {
    /// Application start-up.
    Startup,
    /// The user cleared the previous conversation.
    Clear,
}

/// Result of `thread/start` (and the base of the resume and fork results).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadStartResponse {
    /// The new thread.
    pub thread: Thread,
    /// Model in effect.
    pub model: String,
    /// Model provider in effect.
    pub model_provider: String,
    /// The service tier the request named, echoed; Tandem does not send it to the provider.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// Disabled plugin ids; always empty in Tandem.
    #[serde(default)]
    pub disabled_plugin_ids: Vec<String>,
    /// Working directory (absolute).
    pub cwd: String,
    /// Workspace roots visible at runtime (the cwd). @experimental
    #[serde(default)]
    pub runtime_workspace_roots: Vec<String>,
    /// Files the instructions came from.
    #[serde(default)]
    pub instruction_sources: Vec<String>,
    /// Approval policy in effect.
    pub approval_policy: AskForApproval,
    /// Who reviews approvals, as requested; approvals go to the client whatever it says.
    pub approvals_reviewer: ApprovalsReviewer,
    /// Sandbox in effect, in object form.
    pub sandbox: SandboxPolicy,
    /// Active permission profile; always `null` in Tandem. @experimental
    #[serde(default)]
    pub active_permission_profile: Option<serde_json::Value>,
    /// Reasoning effort in effect.
    #[serde(default)]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Multi-agent mode; always `explicitRequestOnly` in Tandem. @experimental
    #[serde(default)]
    pub multi_agent_mode: Option<String>,
}

/// Parameters of `thread/resume`: load a stored thread and subscribe to its events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadResumeParams {
    /// Thread to resume.
    pub thread_id: String,
    /// Model override.
    #[serde(default)]
    pub model: Option<String>,
    /// Model provider override.
    #[serde(default)]
    pub model_provider: Option<String>,
    /// Service-tier override. Accepted and echoed, but never sent to the provider, so it has
    /// no effect.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// Working-directory override.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Approval-policy override.
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    /// Reviewer override. Stored and echoed; approvals still go to the client whatever it
    /// says.
    #[serde(default)]
    pub approvals_reviewer: Option<ApprovalsReviewer>,
    /// Sandbox override.
    #[serde(default)]
    pub sandbox: Option<SandboxMode>,
    /// Config overrides.
    #[serde(default)]
    pub config: Option<BTreeMap<String, serde_json::Value>>,
    /// Base-instructions override.
    #[serde(default)]
    pub base_instructions: Option<String>,
    /// Developer-instructions override.
    #[serde(default)]
    pub developer_instructions: Option<String>,
    /// Deprecated; accepted and ignored.
    #[serde(default)]
    pub personality: Option<Personality>,
    /// Leave `thread.turns` empty (page with `thread/turns/list` instead).
    #[serde(default)]
    pub exclude_turns: Option<bool>,
    /// Asks the reference server to record extra event kinds in the rollout. Accepted and
    /// ignored: Tandem's rollout always records every completed item. `true` requires
    /// `capabilities.experimentalApi`. @experimental
    #[serde(default)]
    pub persist_extended_history: Option<bool>,
}

/// Result of `thread/resume`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadResumeResponse {
    /// The resumed thread, with its turns unless `excludeTurns`.
    pub thread: Thread,
    /// Model in effect.
    pub model: String,
    /// Model provider in effect.
    pub model_provider: String,
    /// The service tier the request named, echoed; Tandem does not send it to the provider.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// Disabled plugin ids; always empty in Tandem.
    #[serde(default)]
    pub disabled_plugin_ids: Vec<String>,
    /// Working directory (absolute).
    pub cwd: String,
    /// Workspace roots visible at runtime (the cwd). @experimental
    #[serde(default)]
    pub runtime_workspace_roots: Vec<String>,
    /// Files the instructions came from.
    #[serde(default)]
    pub instruction_sources: Vec<String>,
    /// Approval policy in effect.
    pub approval_policy: AskForApproval,
    /// Who reviews approvals, as requested; approvals go to the client whatever it says.
    pub approvals_reviewer: ApprovalsReviewer,
    /// Sandbox in effect, in object form.
    pub sandbox: SandboxPolicy,
    /// Active permission profile; always `null` in Tandem. @experimental
    #[serde(default)]
    pub active_permission_profile: Option<serde_json::Value>,
    /// Reasoning effort in effect.
    #[serde(default)]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Collaboration mode in effect.
    #[serde(default)]
    pub collaboration_mode: Option<CollaborationMode>,
    /// Multi-agent mode; always `explicitRequestOnly` in Tandem. @experimental
    #[serde(default)]
    pub multi_agent_mode: Option<String>,
    /// First page of turns; always `null` in Tandem. @experimental
    #[serde(default)]
    pub initial_turns_page: Option<serde_json::Value>,
    /// Cursor for paging older turns with `thread/turns/list`.
    #[serde(default)]
    pub turns_backwards_cursor: Option<String>,
    /// Cursor for paging older items.
    #[serde(default)]
    pub items_backwards_cursor: Option<String>,
}

/// Parameters of `thread/fork`: copy a stored thread's history into a new thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadForkParams {
    /// Thread to fork.
    pub thread_id: String,
    /// Fork after this turn (default: after the last turn).
    #[serde(default)]
    pub last_turn_id: Option<String>,
    /// Model override.
    #[serde(default)]
    pub model: Option<String>,
    /// Model provider override.
    #[serde(default)]
    pub model_provider: Option<String>,
    /// Service-tier override. Accepted and echoed, but never sent to the provider, so it has
    /// no effect.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// Working-directory override.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Approval-policy override.
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    /// Reviewer override. Stored and echoed; approvals still go to the client whatever it
    /// says.
    #[serde(default)]
    pub approvals_reviewer: Option<ApprovalsReviewer>,
    /// Sandbox override.
    #[serde(default)]
    pub sandbox: Option<SandboxMode>,
    /// Config overrides.
    #[serde(default)]
    pub config: Option<BTreeMap<String, serde_json::Value>>,
    /// Base-instructions override.
    #[serde(default)]
    pub base_instructions: Option<String>,
    /// Developer-instructions override.
    #[serde(default)]
    pub developer_instructions: Option<String>,
    /// Make the fork ephemeral (requires `excludeTurns: true`).
    #[serde(default)]
    pub ephemeral: Option<bool>,
    /// Leave `thread.turns` empty.
    #[serde(default)]
    pub exclude_turns: Option<bool>,
    /// Free-form label stored as `thread.threadSource`.
    #[serde(default)]
    pub thread_source: Option<String>,
    /// Asks the reference server to record extra event kinds in the rollout. Accepted and
    /// ignored: Tandem's rollout always records every completed item. `true` requires
    /// `capabilities.experimentalApi`. @experimental
    #[serde(default)]
    pub persist_extended_history: Option<bool>,
}

/// Parameters of `thread/list`. Every field is optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadListParams {
    /// Opaque cursor from a previous page's `nextCursor`.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size (at least 1); omitted means every thread.
    #[serde(default)]
    pub limit: Option<u32>,
    /// Sort key (default `created_at`).
    #[serde(default)]
    pub sort_key: Option<ThreadSortKey>,
    /// Sort direction (default `desc`, newest first).
    #[serde(default)]
    pub sort_direction: Option<SortDirection>,
    /// Only threads of these providers.
    #[serde(default)]
    pub model_providers: Option<Vec<String>>,
    /// Only threads from these sources; omitted or empty means interactive ones (`cli`, `vscode`).
    #[serde(default)]
    pub source_kinds: Option<Vec<ThreadSourceKind>>,
    /// Only threads created by these clients (`clientInfo.name`).
    #[serde(default)]
    pub originators: Option<Vec<String>>,
    /// `true`: archived threads only; otherwise non-archived only.
    #[serde(default)]
    pub archived: Option<bool>,
    /// Only threads with this working directory (or one of these).
    #[serde(default)]
    pub cwd: Option<ThreadListCwdFilter>,
    /// Case-sensitive substring of the name or preview.
    #[serde(default)]
    pub search_term: Option<String>,
    /// Threads to leave out.
    #[serde(default)]
    pub excluded_thread_ids: Option<Vec<String>>,
    /// Only threads of this project; `null` means threads of no project. No Tandem thread
    /// belongs to a project, so `null` filters nothing out and an id matches no thread. The
    /// field, even `null`, requires `capabilities.experimentalApi`. @experimental
    #[serde(default, deserialize_with = "present_or_null")]
    #[ts(optional, type = "string | null")]
    #[schemars(with = "Option<String>")]
    pub project_id: Option<Option<String>>,
    /// Only threads of this section (`threadSection/*`); `null` means threads of no section,
    /// and leaving it out means every thread.
    #[serde(
        default,
        deserialize_with = "present_or_null",
        skip_serializing_if = "Option::is_none"
    )]
    #[ts(optional, type = "string | null")]
    #[schemars(with = "Option<String>")]
    pub section_id: Option<Option<String>>,
    /// Only the sub-agent threads this thread spawned directly. Tandem spawns no sub-agent
    /// threads, so this matches no thread. Requires `capabilities.experimentalApi`.
    /// @experimental
    #[serde(default)]
    pub parent_thread_id: Option<String>,
    /// Only the sub-agent threads spawned below this thread, at any depth. Tandem spawns no
    /// sub-agent threads, so this matches no thread. Requires
    /// `capabilities.experimentalApi`. @experimental
    #[serde(default)]
    pub ancestor_thread_id: Option<String>,
}

/// Tells an explicit `null` (`Some(None)`) from an omitted field (`None`, through
/// `#[serde(default)]`).
fn present_or_null<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// One working directory or several.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(untagged)]
pub enum ThreadListCwdFilter {
    /// A single directory.
    One(String),
    /// Any of these directories.
    Many(Vec<String>),
}

/// Sort key of `thread/list` (snake_case on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ThreadSortKey {
    /// Creation time.
    CreatedAt,
    /// Last update time.
    UpdatedAt,
    /// Time of the last activity (in Tandem, the last update time). Requires
    /// `capabilities.experimentalApi`.
    RecencyAt,
    /// Position within a section (`thread/section/move`), first to last whatever the
    /// direction; needs a `sectionId` filter naming a section. Requires
    /// `capabilities.experimentalApi`.
    SectionPosition,
}

/// Source kinds for filtering `thread/list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadSourceKind {
    /// Command-line sessions.
    Cli,
    /// IDE sessions (every app-server thread).
    Vscode,
    /// Non-interactive exec runs.
    Exec,
    /// App-server sessions.
    AppServer,
    /// Sub-agent threads.
    SubAgent,
    /// Review sub-agents.
    SubAgentReview,
    /// Compaction sub-agents.
    SubAgentCompact,
    /// Spawned sub-agent threads.
    SubAgentThreadSpawn,
    /// Other sub-agents.
    SubAgentOther,
    /// Unknown source.
    Unknown,
}

/// Result of `thread/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadListResponse {
    /// One page of threads, with `turns: []`.
    pub data: Vec<Thread>,
    /// Read state of each listed thread that has one (stored threads), by thread id.
    /// @experimental
    #[serde(default)]
    pub read_states: Option<BTreeMap<String, ThreadReadState>>,
    /// Cursor of the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
    /// Cursor for fetching newer threads.
    #[serde(default)]
    pub backwards_cursor: Option<String>,
}

/// Parameters of `thread/read`: a thread's metadata (and turns) without loading it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadReadParams {
    /// Thread to read.
    pub thread_id: String,
    /// Fill `thread.turns` (every item).
    #[serde(default)]
    pub include_turns: Option<bool>,
}

/// Result of `thread/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadReadResponse {
    /// The thread.
    pub thread: Thread,
    /// The thread's read state; `null` for a thread that is not stored (ephemeral, or not
    /// yet written). @experimental
    #[serde(default)]
    pub read_state: Option<ThreadReadState>,
}

/// Parameters of `thread/turns/list`: a page of a thread's turns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadTurnsListParams {
    /// Thread whose turns to list.
    pub thread_id: String,
    /// Opaque cursor from a previous page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size.
    #[serde(default)]
    pub limit: Option<u32>,
    /// Order (default `desc`, newest first).
    #[serde(default)]
    pub sort_direction: Option<SortDirection>,
    /// Which items to include (default `summary`).
    #[serde(default)]
    pub items_view: Option<TurnItemsView>,
}

/// Result of `thread/turns/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadTurnsListResponse {
    /// One page of turns.
    pub data: Vec<Turn>,
    /// Cursor of the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
    /// Cursor for paging in the other direction.
    #[serde(default)]
    pub backwards_cursor: Option<String>,
}

/// Parameters of `thread/archive`, `thread/unarchive`, `thread/delete` and `thread/unsubscribe`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadIdParams {
    /// The thread.
    pub thread_id: String,
}

/// An empty result, `{}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct EmptyResponse {}

/// Result of `thread/unarchive`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadUnarchiveResponse {
    /// The restored thread.
    pub thread: Thread,
}

/// Parameters of `thread/name/set`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSetNameParams {
    /// The thread.
    pub thread_id: String,
    /// New name; must not be empty.
    pub name: String,
}

/// Parameters of `thread/loaded/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadLoadedListParams {
    // No `#[serde(default)]`: an absent `Option` field is `None` all the same, and params sent
    // as an array must then hold both fields, as on the reference (`[]` is refused).
    /// Opaque cursor from a previous page.
    pub cursor: Option<String>,
    /// Page size.
    pub limit: Option<u32>,
}

/// Result of `thread/loaded/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadLoadedListResponse {
    /// Ids of the threads loaded in this server.
    pub data: Vec<String>,
    /// Cursor of the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// Result of `thread/unsubscribe`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadUnsubscribeResponse {
    /// What happened.
    pub status: ThreadUnsubscribeStatus,
}

/// Outcome of `thread/unsubscribe`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadUnsubscribeStatus {
    /// The connection no longer receives the thread's events.
    Unsubscribed,
    /// The connection was not subscribed.
    NotSubscribed,
    /// The thread is not loaded.
    NotLoaded,
}

/// Empty params, `{}`; may be omitted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct EmptyParams {}

/// The params of a method that takes none: `params` may be omitted, or sent as `{}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct NoParams {}
