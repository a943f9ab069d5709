//! Hooks: commands the operator configures in `config.toml` to run at points of a turn
//! (`hooks/list`, `hook/started`, `hook/completed`).
//!
//! A hook runs only once trusted: its `[hooks.state."KEY"]` entry holds `trusted_hash`, the
//! hash of the hook as configured (`currentHash`), so that an edited hook stops running until
//! it is trusted again. Keys and hashes are the reference's, so a configuration trusted there
//! is trusted here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `hooks/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct HooksListParams {
    /// The working directories to report, one entry each; omitted or empty reports the
    /// server's working directory (or the thread's, with `threadId`).
    #[serde(default)]
    pub cwds: Option<Vec<String>>,
    /// A loaded thread of the caller whose working directory to report.
    #[serde(default)]
    pub thread_id: Option<String>,
}

/// Result of `hooks/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HooksListResponse {
    /// One entry per working directory.
    pub data: Vec<HooksListEntry>,
}

/// The hooks configured for one working directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HooksListEntry {
    /// The working directory, as requested.
    pub cwd: String,
    /// Every configured hook, trusted or not, in the order they run.
    pub hooks: Vec<HookMetadata>,
    /// Configuration problems that did not stop the other hooks (a hook kind or event this
    /// server does not run, an invalid matcher, an empty command).
    pub warnings: Vec<String>,
    /// Configuration files that could not be read.
    pub errors: Vec<HookErrorInfo>,
}

/// One configured hook.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookMetadata {
    /// `SOURCE_PATH:EVENT:GROUP:HANDLER` (the event in snake case, the matcher group's and the
    /// handler's positions from 0): the key of its `[hooks.state]` entry.
    pub key: String,
    /// When it runs.
    pub event_name: HookEventName,
    /// What it runs.
    #[serde(flatten)]
    pub handler: HookHandler,
    /// The tool-name pattern (a regular expression) of a tool event's matcher group; `null`
    /// for every tool, and for events without matchers.
    pub matcher: Option<String>,
    /// How long it may run, in seconds (`timeout`, default 600).
    pub timeout_sec: u64,
    /// `statusMessage`: what a client may show while it runs.
    pub status_message: Option<String>,
    /// Accepted for compatibility; always `null`: hook context is not spilled to files.
    pub additional_context_limit: Option<u64>,
    /// The configuration file that defines it.
    pub source_path: String,
    /// The kind of configuration it came from; always `user` (`config.toml`).
    pub source: HookSource,
    /// Always `null`: Tandem loads no plugin hooks.
    pub plugin_id: Option<String>,
    /// Always `null`: hooks come from no execution environment's requirements.
    pub environment_id: Option<String>,
    /// Its position among all hooks, from 0.
    pub display_order: i64,
    /// Whether it is enabled (`enabled = false` in its `[hooks.state]` entry disables it).
    pub enabled: bool,
    /// Always `false`: Tandem has no administrator-managed hooks.
    pub is_managed: bool,
    /// `sha256:` and the hex SHA-256 of the hook as configured, the value its
    /// `[hooks.state]` entry's `trusted_hash` must hold for it to run.
    pub current_hash: String,
    /// Whether it runs: `trusted` when `trusted_hash` equals `currentHash`.
    pub trust_status: HookTrustStatus,
}

/// The handler of a hook, tagged by `handlerType`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "handlerType", rename_all = "camelCase")]
pub enum HookHandler {
    /// A shell command, given the event as JSON on its stdin.
    Command {
        /// The command line, run by `sh -c` in the thread's working directory.
        command: String,
        /// Whether it was configured `async`; Tandem runs every hook to completion.
        #[serde(rename = "async", default)]
        #[ts(rename = "async")]
        run_async: bool,
    },
}

/// When a hook runs. Tandem runs `preToolUse`, `postToolUse`, `userPromptSubmit` and `stop`;
/// the others are the reference's and are never configured here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum HookEventName {
    /// Before a model request (not run by Tandem).
    PreModelRequest,
    /// After a model request (not run by Tandem).
    PostModelRequest,
    /// Before a tool call runs; may block it.
    PreToolUse,
    /// When a tool call asks for approval (not run by Tandem).
    PermissionRequest,
    /// After a tool call ran; may give the model feedback.
    PostToolUse,
    /// Before a compaction (not run by Tandem).
    PreCompact,
    /// After a compaction (not run by Tandem).
    PostCompact,
    /// When a session starts (not run by Tandem).
    SessionStart,
    /// When a session ends (not run by Tandem).
    SessionEnd,
    /// When the user's input starts a turn; may add context or block the input.
    UserPromptSubmit,
    /// When a sub-agent starts (not run by Tandem).
    SubagentStart,
    /// When a sub-agent stops (not run by Tandem).
    SubagentStop,
    /// When the model ends its answer; may send it back to work with a reason.
    Stop,
    /// When a turn is interrupted (not run by Tandem).
    Interrupt,
}

/// What kind of handler a hook has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum HookHandlerType {
    /// A shell command.
    Command,
    /// An MCP tool (not run by Tandem).
    McpTool,
    /// A model prompt (not run by Tandem).
    Prompt,
    /// An agent (not run by Tandem).
    Agent,
}

/// Whether a hook's turn waits for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum HookExecutionMode {
    /// The turn waits for the hook (every hook Tandem runs).
    Sync,
    /// The hook runs beside the turn.
    Async,
}

/// What a hook run belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum HookScope {
    /// The thread as a whole.
    Thread,
    /// One turn (every hook Tandem runs).
    Turn,
}

/// The kind of configuration a hook came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum HookSource {
    /// A system-wide configuration.
    System,
    /// The user's `config.toml` (every hook Tandem runs).
    User,
    /// A project's configuration.
    Project,
    /// A managed-device profile.
    Mdm,
    /// Command-line flags.
    SessionFlags,
    /// A plugin.
    Plugin,
    /// Cloud requirements.
    CloudRequirements,
    /// A cloud-managed configuration.
    CloudManagedConfig,
    /// A legacy managed configuration file.
    LegacyManagedConfigFile,
    /// A legacy managed-device configuration.
    LegacyManagedConfigMdm,
    /// Unknown.
    Unknown,
}

/// Whether a hook may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum HookTrustStatus {
    /// Managed by an administrator (never in Tandem).
    Managed,
    /// No `trusted_hash` recorded: it does not run.
    Untrusted,
    /// `trusted_hash` equals its current hash: it runs.
    Trusted,
    /// `trusted_hash` is that of an earlier version: it does not run until trusted again.
    Modified,
}

/// A configuration file whose hooks could not be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookErrorInfo {
    /// The file.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

/// `hook/started` and `hook/completed`: a hook run of a thread's turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookRunNotification {
    /// The thread.
    pub thread_id: String,
    /// The turn the run belongs to.
    pub turn_id: Option<String>,
    /// The run: `running` in `hook/started`, its outcome in `hook/completed`.
    pub run: HookRunSummary,
}

/// One run of a hook.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookRunSummary {
    /// `EVENT:DISPLAY_ORDER:SOURCE_PATH`, the event in kebab case (`user-prompt-submit`).
    pub id: String,
    /// The event that ran it.
    pub event_name: HookEventName,
    /// Its handler's kind.
    pub handler_type: HookHandlerType,
    /// Whether the turn waited for it.
    pub execution_mode: HookExecutionMode,
    /// What the run belongs to.
    pub scope: HookScope,
    /// The configuration file that defines the hook.
    pub source_path: String,
    /// The kind of configuration the hook came from.
    pub source: HookSource,
    /// The hook's position among all hooks.
    pub display_order: i64,
    /// Where the run is.
    pub status: HookRunStatus,
    /// The hook's `statusMessage`.
    pub status_message: Option<String>,
    /// When it started (Unix seconds).
    pub started_at: i64,
    /// When it ended (Unix seconds); `null` while it runs.
    pub completed_at: Option<i64>,
    /// How long it ran, in milliseconds; `null` while it runs.
    pub duration_ms: Option<i64>,
    /// What it said: context for the model, feedback, warnings, errors.
    pub entries: Vec<HookOutputEntry>,
}

/// Where a hook run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum HookRunStatus {
    /// It runs.
    Running,
    /// It ended and let the turn go on.
    Completed,
    /// It failed (exit status other than 0 and 2, bad output, timeout); the turn goes on.
    Failed,
    /// It blocked what it guards (exit status 2 or a `block` decision).
    Blocked,
    /// It asked to stop the turn.
    Stopped,
}

/// One thing a hook run said.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookOutputEntry {
    /// What it is.
    pub kind: HookOutputEntryKind,
    /// The text.
    pub text: String,
}

/// The kind of a hook output entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum HookOutputEntryKind {
    /// A warning for the user.
    Warning,
    /// Why the turn was stopped.
    Stop,
    /// Why something was blocked, given back to the model.
    Feedback,
    /// Context added for the model.
    Context,
    /// Why the run failed.
    Error,
}

/// One hook run's reason in a `hookPrompt` item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookPromptFragment {
    /// The reason, as the model receives it.
    pub text: String,
    /// The hook run that gave it (`hook/completed`'s `run.id`).
    pub hook_run_id: String,
}
