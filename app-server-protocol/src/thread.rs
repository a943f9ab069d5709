//! Threads, turns, their statuses, errors and token usage.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::item::ThreadItem;
use crate::policy::ReasoningEffort;

/// A conversation: its metadata, status and (when requested) its turns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    /// Thread id (UUIDv7, lowercase, hyphenated).
    pub id: String,
    /// Execution environments of a loaded thread; `null` for listed threads. @experimental
    #[serde(default)]
    pub environments: Option<Vec<ThreadEnvironment>>,
    /// Free-form extension data; always `null` in Tandem. @experimental
    #[serde(default)]
    pub extra: Option<serde_json::Value>,
    /// Session id; equal to `id` for root threads.
    pub session_id: String,
    /// Id of the thread this one was forked from.
    #[serde(default)]
    pub forked_from_id: Option<String>,
    /// Id of the thread this one is attached to; always `null` in Tandem. @experimental
    #[serde(default)]
    pub attached_to_thread_id: Option<String>,
    /// Id of the parent thread for sub-agent threads; `null` for root threads.
    #[serde(default)]
    pub parent_thread_id: Option<String>,
    /// The first user message, used as a preview; `""` before the first turn.
    pub preview: String,
    /// Ephemeral threads are never written to disk and are not listed.
    pub ephemeral: bool,
    /// The section the thread's owner put it in (`thread/section/move`), if any.
    #[serde(default)]
    pub section: Option<crate::thread_section::ThreadSection>,
    /// When the thread entered its section (Unix seconds); `null` outside a section.
    #[serde(default)]
    pub section_entered_at: Option<i64>,
    /// Project id; always `null` in Tandem.
    pub project_id: Option<String>,
    /// How history is stored; new threads are `paginated`.
    #[serde(default)]
    pub history_mode: ThreadHistoryMode,
    /// Model provider id (a key of `model_providers` in config.toml).
    pub model_provider: String,
    /// Model slug.
    #[serde(default)]
    pub model: Option<String>,
    /// Reasoning effort in effect.
    #[serde(default)]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Creation time (Unix seconds).
    pub created_at: i64,
    /// Last update time (Unix seconds).
    pub updated_at: i64,
    /// Last activity time (Unix seconds).
    #[serde(default)]
    pub recency_at: Option<i64>,
    /// Runtime status.
    pub status: ThreadStatus,
    /// Absolute path of the rollout file; `null` for ephemeral threads.
    #[serde(default)]
    pub path: Option<String>,
    /// Working directory (absolute).
    pub cwd: String,
    /// Version of the server protocol that created the thread.
    pub cli_version: String,
    /// `clientInfo.name` of the client that created the thread.
    #[serde(default)]
    pub originator: Option<String>,
    /// Where the thread was created; `vscode` for every app-server thread.
    pub source: SessionSource,
    /// Whether the thread accepts direct input; `null` for listed threads. @experimental
    #[serde(default)]
    pub can_accept_direct_input: Option<bool>,
    /// Free-form label of what started the thread.
    #[serde(default)]
    pub thread_source: Option<String>,
    /// Nickname of a sub-agent thread.
    #[serde(default)]
    pub agent_nickname: Option<String>,
    /// Role of a sub-agent thread.
    #[serde(default)]
    pub agent_role: Option<String>,
    /// Git metadata of the working directory.
    #[serde(default)]
    pub git_info: Option<GitInfo>,
    /// User-chosen name (`thread/name/set`).
    #[serde(default)]
    pub name: Option<String>,
    /// Always `null` in Tandem. @experimental
    #[serde(default)]
    pub daybreak_enabled: Option<bool>,
    /// Turns; populated only where a method says so (`includeTurns`, resume, fork).
    pub turns: Vec<Turn>,
}

/// An execution environment of a thread. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadEnvironment {
    /// Environment id (`local`).
    pub environment_id: String,
    /// Working directory in this environment.
    pub cwd: String,
    /// Workspace roots visible at runtime.
    pub runtime_workspace_roots: Vec<String>,
}

/// How a thread's history is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadHistoryMode {
    /// Older threads: full history only.
    #[default]
    Legacy,
    /// History can be paged with `thread/turns/list`.
    Paginated,
}

/// Runtime status of a thread (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ThreadStatus {
    /// Stored on disk but not loaded in this server.
    NotLoaded,
    /// Loaded, no turn running.
    Idle,
    /// The last turn failed; stays until the next turn starts.
    SystemError,
    /// A turn is running.
    Active {
        /// What the running turn is waiting for, if anything.
        active_flags: Vec<ThreadActiveFlag>,
    },
}

/// What an active thread is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadActiveFlag {
    /// A command or file-change approval is pending.
    WaitingOnApproval,
    /// A question to the user is pending.
    WaitingOnUserInput,
}

/// Where a thread was created.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum SessionSource {
    /// A command-line session.
    Cli,
    /// An IDE through the app-server (every app-server thread).
    Vscode,
    /// A non-interactive exec run.
    Exec,
    /// The app-server itself.
    AppServer,
    /// Unknown origin.
    Unknown,
    /// A custom origin label.
    Custom(String),
}

/// Git metadata of a thread's working directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct GitInfo {
    /// Commit sha of `HEAD`.
    #[serde(default)]
    pub sha: Option<String>,
    /// Current branch.
    #[serde(default)]
    pub branch: Option<String>,
    /// URL of the `origin` remote.
    #[serde(default)]
    pub origin_url: Option<String>,
}

/// One user request and the agent's work on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// Turn id (UUIDv7).
    pub id: String,
    /// Id of the root turn; equal to `id` for ordinary turns.
    #[serde(default)]
    pub root_turn_id: Option<String>,
    /// Items, as far as `itemsView` says they are loaded.
    pub items: Vec<ThreadItem>,
    /// How much of `items` is filled in.
    #[serde(default)]
    pub items_view: TurnItemsView,
    /// Lifecycle status.
    pub status: TurnStatus,
    /// Why the turn failed, for `failed` turns.
    #[serde(default)]
    pub error: Option<TurnError>,
    /// Start time (Unix seconds); `null` in the `turn/start` response.
    #[serde(default)]
    pub started_at: Option<i64>,
    /// Completion time (Unix seconds).
    #[serde(default)]
    pub completed_at: Option<i64>,
    /// Duration in milliseconds.
    #[serde(default)]
    pub duration_ms: Option<i64>,
}

/// Lifecycle status of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum TurnStatus {
    /// Finished normally.
    Completed,
    /// Interrupted by the client (or by a `cancel` decision).
    Interrupted,
    /// Ended by an error; see `error`.
    Failed,
    /// Still running.
    InProgress,
}

/// How much of a turn's item list is included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum TurnItemsView {
    /// No items.
    NotLoaded,
    /// The user message and the final agent message only.
    Summary,
    /// Every persisted item.
    #[default]
    Full,
}

/// Why a turn failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnError {
    /// Human-readable description.
    pub message: String,
    /// Machine-readable category.
    #[serde(default)]
    pub codex_error_info: Option<CodexErrorInfo>,
    /// Extra detail, such as the transport error.
    #[serde(default)]
    pub additional_details: Option<String>,
    /// Misalignment details; always `null` in Tandem.
    #[serde(default)]
    pub misalignment: Option<serde_json::Value>,
}

/// Machine-readable error category: a camelCase string, or a single-key object for
/// categories that carry data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum CodexErrorInfo {
    /// The conversation no longer fits the model's context window.
    ContextWindowExceeded,
    /// A session budget was exhausted.
    SessionBudgetExceeded,
    /// The account's usage limit was reached.
    UsageLimitExceeded,
    /// Too many requests (HTTP 429) after all retries.
    RateLimitExceeded,
    /// The flex tier is unavailable.
    FlexUnavailable,
    /// The provider is overloaded.
    ServerOverloaded,
    /// The model does not exist at the provider (HTTP 404).
    ModelNotFound,
    /// Capacity for the policy is unavailable.
    PolicyCapacityUnavailable,
    /// A hook denied the request.
    InferenceHookDenied,
    /// Blocked by a cyber-security policy.
    CyberPolicy,
    /// Blocked by a misalignment policy.
    MisalignmentPolicyViolation,
    /// Too many denied approvals.
    TooManyDenials,
    /// The provider answered HTTP 5xx.
    InternalServerError,
    /// The API key was rejected (HTTP 401/403).
    Unauthorized,
    /// The provider rejected the request (HTTP 400).
    BadRequest,
    /// Rolling the thread back failed.
    ThreadRollbackFailed,
    /// The sandbox failed.
    SandboxError,
    /// Anything else.
    Other,
    /// Connecting to the provider failed.
    HttpConnectionFailed {
        /// HTTP status, when there was one.
        #[serde(rename = "httpStatusCode", default)]
        http_status_code: Option<u16>,
    },
    /// Opening the response stream failed.
    ResponseStreamConnectionFailed {
        /// HTTP status, when there was one.
        #[serde(rename = "httpStatusCode", default)]
        http_status_code: Option<u16>,
    },
    /// The response stream ended before completion.
    ResponseStreamDisconnected {
        /// HTTP status, when there was one.
        #[serde(rename = "httpStatusCode", default)]
        http_status_code: Option<u16>,
    },
    /// Every retry failed.
    ResponseTooManyFailedAttempts {
        /// HTTP status of the last attempt, when there was one.
        #[serde(rename = "httpStatusCode", default)]
        http_status_code: Option<u16>,
    },
}

/// Token usage of a thread: cumulative and for the last model response.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadTokenUsage {
    /// Cumulative usage over the thread.
    pub total: TokenUsageBreakdown,
    /// Usage of the last model response.
    pub last: TokenUsageBreakdown,
    /// The model's context window in tokens, when known.
    #[serde(default)]
    pub model_context_window: Option<i64>,
}

/// Token counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsageBreakdown {
    /// Input plus output tokens.
    pub total_tokens: i64,
    /// Prompt tokens.
    pub input_tokens: i64,
    /// Prompt tokens served from cache.
    pub cached_input_tokens: i64,
    /// Prompt tokens written to cache.
    #[serde(default)]
    pub cache_write_input_tokens: i64,
    /// Generated tokens.
    pub output_tokens: i64,
    /// Generated reasoning tokens.
    pub reasoning_output_tokens: i64,
}
