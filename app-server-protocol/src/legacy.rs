//! Legacy: the first-generation conversation API (`newConversation`, `sendUserMessage`, …) and
//! its approval requests (`applyPatchApproval`, `execCommandApproval`).
//!
//! Codex clients written before the thread/turn API still speak it. A conversation is a
//! thread: the conversation id is the thread id, `thread/list` lists conversations and
//! `listConversations` lists threads. While a conversation runs, its events arrive as
//! `codex/event` notifications (see [`crate::codex_event`]). Field names are camelCase except
//! inside Codex's own types (`FileChange`, `ParsedCommand`, `ReviewDecision`), which keep
//! their snake_case.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::codex_event::EventMsg;
use crate::item::UserInput;
use crate::policy::{
    NetworkAccess, Personality, ReasoningEffort, ReasoningSummary, SandboxMode, SandboxPolicy,
};

/// Approval policy of the conversation API: the thread API's values plus the deprecated
/// `on-failure`, which Tandem treats as `on-request`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub enum LegacyApprovalPolicy {
    /// Ask for everything that is not known to be safe.
    #[serde(rename = "untrusted")]
    Untrusted,
    /// Deprecated: run in the sandbox and ask when it fails. Treated as `on-request`.
    #[serde(rename = "on-failure")]
    OnFailure,
    /// The model decides when to ask.
    #[serde(rename = "on-request")]
    OnRequest,
    /// Never ask.
    #[serde(rename = "never")]
    Never,
}

/// Sandbox mode of `newConversation`: the thread API's modes plus `external-sandbox`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "kebab-case")]
pub enum LegacySandboxMode {
    /// Commands may read anything and write nothing.
    ReadOnly,
    /// Commands may write inside the workspace.
    WorkspaceWrite,
    /// No sandbox at all.
    DangerFullAccess,
    /// The process is already sandboxed by its host; `networkAccess` says what the host
    /// allows. Commands run without Tandem's own sandbox.
    ExternalSandbox,
}

impl LegacySandboxMode {
    /// The thread API's mode this one runs as (`external-sandbox` runs unsandboxed, since the
    /// host sandboxes the whole process).
    pub fn sandbox_mode(self) -> SandboxMode {
        match self {
            LegacySandboxMode::ReadOnly => SandboxMode::ReadOnly,
            LegacySandboxMode::WorkspaceWrite => SandboxMode::WorkspaceWrite,
            LegacySandboxMode::DangerFullAccess | LegacySandboxMode::ExternalSandbox => {
                SandboxMode::DangerFullAccess
            }
        }
    }
}

/// Parameters of `newConversation`. Legacy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct NewConversationParams {
    /// Model slug; the configured model when omitted.
    #[serde(default)]
    pub model: Option<String>,
    /// Model provider id; the configured provider when omitted.
    #[serde(default)]
    pub model_provider: Option<String>,
    /// Config profile to apply.
    #[serde(default)]
    pub profile: Option<String>,
    /// Working directory; the server's when omitted.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Approval policy (`on-failure` is a deprecated alias of `on-request`).
    #[serde(default)]
    pub approval_policy: Option<LegacyApprovalPolicy>,
    /// Sandbox mode.
    #[serde(default)]
    pub sandbox: Option<LegacySandboxMode>,
    /// With `sandbox: "external-sandbox"`: the network access the host sandbox grants.
    #[serde(default)]
    pub network_access: Option<NetworkAccess>,
    /// Config overrides (`key.path` → value), as `-c` takes them.
    #[serde(default)]
    pub config: Option<HashMap<String, serde_json::Value>>,
    /// Replaces the built-in instructions.
    #[serde(default)]
    pub base_instructions: Option<String>,
    /// Extra developer instructions.
    #[serde(default)]
    pub developer_instructions: Option<String>,
    /// Prompt that asks for the summary when this conversation's history is compacted (on
    /// request and automatically), in place of `compact_prompt` from config and the built-in
    /// prompt. It is stored with the thread, so a resumed conversation keeps it; on
    /// `resumeConversation` a value replaces the stored one.
    #[serde(default)]
    pub compact_prompt: Option<String>,
    /// Offer the `update_plan` tool; accepted, the tool is always offered.
    #[serde(default)]
    pub include_plan_tool: Option<bool>,
    /// Offer the `apply_patch` tool; accepted, the tool is always offered.
    #[serde(default)]
    pub include_apply_patch_tool: Option<bool>,
}

/// Result of `newConversation`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct NewConversationResponse {
    /// The conversation (thread) id.
    pub conversation_id: String,
    /// Model in effect.
    pub model: String,
    /// Reasoning effort in effect, when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Absolute path of the rollout file.
    pub rollout_path: String,
}

/// One input of `sendUserMessage` / `sendUserTurn`: Codex's `{"type", "data"}` form
/// (`{"type": "text", "data": {"text": …}}`), or the thread API's flat `UserInput`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(untagged)]
pub enum InputItem {
    /// Codex's first-generation form.
    Legacy(LegacyInputItem),
    /// The thread API's form.
    Flat(UserInput),
}

/// Codex's first-generation input item, tagged by `type` with its content under `data`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", content = "data", rename_all = "camelCase")]
pub enum LegacyInputItem {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image by URL (including `data:` URLs).
    Image {
        /// The image URL.
        image_url: String,
    },
    /// An image file on the server's machine.
    LocalImage {
        /// Path of the image file.
        path: String,
    },
}

/// Parameters of `sendUserMessage`: start a turn with the conversation's settings. Legacy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SendUserMessageParams {
    /// The conversation (thread) id.
    pub conversation_id: String,
    /// The user's input.
    pub items: Vec<InputItem>,
}

/// Parameters of `sendUserTurn`: start a turn with explicit settings, which stay in effect
/// for later turns. Legacy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct SendUserTurnParams {
    /// The conversation (thread) id.
    pub conversation_id: String,
    /// The user's input.
    pub items: Vec<InputItem>,
    /// Working directory.
    pub cwd: String,
    /// Approval policy (`on-failure` is a deprecated alias of `on-request`).
    pub approval_policy: LegacyApprovalPolicy,
    /// Sandbox, in object form.
    pub sandbox_policy: SandboxPolicy,
    /// Model slug.
    pub model: String,
    /// Reasoning effort.
    #[serde(default)]
    pub effort: Option<ReasoningEffort>,
    /// Reasoning summary mode.
    pub summary: ReasoningSummary,
    /// Personality (`friendly`, `pragmatic`, `none`): accepted and ignored. In the reference
    /// `none` puts an empty string where the personality text goes; Tandem's instructions have
    /// no personality text, so every value sends the same prompt.
    #[serde(default)]
    pub personality: Option<Personality>,
    /// JSON Schema the final answer must follow.
    #[serde(default)]
    pub output_schema: Option<serde_json::Value>,
}

/// Result of `sendUserMessage` and `sendUserTurn`: the turn runs; its events follow as
/// `codex/event`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct SendUserMessageResponse {}

/// Parameters of `interruptConversation`. Legacy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct InterruptConversationParams {
    /// The conversation (thread) id.
    pub conversation_id: String,
}

/// Result of `interruptConversation`, sent once the running turn has stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct InterruptConversationResponse {
    /// Why the turn ended: `interrupted`.
    pub abort_reason: String,
}

/// Parameters of `listConversations`. Legacy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ListConversationsParams {
    /// Page size (default 25).
    #[serde(default)]
    pub page_size: Option<u32>,
    /// Opaque cursor from a previous page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Only conversations of these model providers.
    #[serde(default)]
    pub model_providers: Option<Vec<String>>,
}

/// Result of `listConversations`: newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ListConversationsResponse {
    /// One page of conversations.
    pub items: Vec<ConversationSummary>,
    /// Cursor of the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

pub use crate::conversation_summary::ConversationSummary;

/// Parameters of `resumeConversation`: load a stored conversation by id or rollout path.
/// Legacy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ResumeConversationParams {
    /// The conversation (thread) id.
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// Or the rollout file's path.
    #[serde(default)]
    pub path: Option<String>,
    /// Settings for the resumed conversation (`model`, `cwd`, `approvalPolicy`, `sandbox`…).
    #[serde(default)]
    pub overrides: Option<NewConversationParams>,
}

/// Result of `resumeConversation`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ResumeConversationResponse {
    /// The conversation (thread) id.
    pub conversation_id: String,
    /// Model in effect.
    pub model: String,
    /// The stored history as Codex events (user and agent messages).
    pub initial_messages: Option<Vec<EventMsg>>,
    /// Absolute path of the rollout file.
    pub rollout_path: String,
}

/// Parameters of `archiveConversation`. Legacy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ArchiveConversationParams {
    /// The conversation (thread) id.
    pub conversation_id: String,
    /// The rollout path `listConversations` gave; checked against the conversation's.
    #[serde(default)]
    pub rollout_path: Option<String>,
}

/// An empty result of a legacy method.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct LegacyEmptyResponse {}

/// An empty params object of a legacy method.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct LegacyEmptyParams {}

/// Result of `getUserSavedConfig`: the user's `config.toml` as saved (without `-c`
/// overrides).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct GetUserSavedConfigResponse {
    /// The saved settings.
    pub config: UserSavedConfig,
}

/// The settings of `config.toml` that the conversation API exposes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct UserSavedConfig {
    /// `approval_policy`.
    pub approval_policy: Option<String>,
    /// `sandbox_mode`.
    pub sandbox_mode: Option<SandboxMode>,
    /// `sandbox_workspace_write` settings.
    pub sandbox_settings: Option<serde_json::Value>,
    /// `model`.
    pub model: Option<String>,
    /// `model_reasoning_effort`.
    pub model_reasoning_effort: Option<ReasoningEffort>,
    /// `model_reasoning_summary`.
    pub model_reasoning_summary: Option<ReasoningSummary>,
    /// `model_verbosity`.
    pub model_verbosity: Option<String>,
    /// `tools` table.
    pub tools: Option<serde_json::Value>,
    /// `profile`: the default profile.
    pub profile: Option<String>,
    /// `profiles`, by name.
    pub profiles: BTreeMap<String, serde_json::Value>,
}

/// Parameters of `setDefaultModel`: writes `model` and `model_reasoning_effort` to
/// `config.toml`, keeping its comments and layout; `null` removes the key. Legacy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct SetDefaultModelParams {
    /// The default model; `null` removes it.
    #[serde(default)]
    pub model: Option<String>,
    /// The default reasoning effort; `null` removes it.
    #[serde(default)]
    pub reasoning_effort: Option<ReasoningEffort>,
}

/// Result of `getUserAgent`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct GetUserAgentResponse {
    /// The user agent the server sends to model providers.
    pub user_agent: String,
}

/// Result of `userInfo`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct UserInfoResponse {
    /// The signed-in user's e-mail; always `null` (Tandem has no ChatGPT login).
    pub alleged_user_email: Option<String>,
}

/// Parameters of `execOneOffCommand`: run a command outside any conversation. Legacy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ExecOneOffCommandParams {
    /// argv; must not be empty.
    pub command: Vec<String>,
    /// Kill it after this many milliseconds (default 10 s).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Working directory; the server's when omitted.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Sandbox; read-only when omitted.
    #[serde(default)]
    pub sandbox_policy: Option<SandboxPolicy>,
}

/// Result of `execOneOffCommand`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExecOneOffCommandResponse {
    /// Exit code (124 on timeout).
    pub exit_code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// A file change as Codex's first-generation types describe it (tagged by `type`,
/// snake_case).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FileChange {
    /// A new file.
    Add {
        /// Its content.
        content: String,
    },
    /// A deleted file.
    Delete {
        /// Its former content.
        content: String,
    },
    /// A changed (and maybe moved) file.
    Update {
        /// The change as a unified diff.
        unified_diff: String,
        /// The new path, for a move.
        move_path: Option<String>,
    },
}

/// What a command does, as Codex's first-generation types describe it (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ParsedCommand {
    /// Reads a file.
    Read {
        /// The (sub)command.
        cmd: String,
        /// File name.
        name: String,
        /// File path.
        path: String,
    },
    /// Lists files.
    ListFiles {
        /// The (sub)command.
        cmd: String,
        /// Directory listed.
        path: Option<String>,
    },
    /// Searches files.
    Search {
        /// The (sub)command.
        cmd: String,
        /// Search query.
        query: Option<String>,
        /// Where it searches.
        path: Option<String>,
    },
    /// Anything else.
    Unknown {
        /// The (sub)command.
        cmd: String,
    },
}

/// A decision on a legacy approval request: Codex's `ReviewDecision`, plus `allow` and `deny`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(untagged)]
pub enum ReviewDecision {
    /// A decision without data (`"approved"`, `"denied"`, `"allow"`, …).
    Named(ReviewDecisionName),
    /// A decision with data (`{"approved_execpolicy_amendment": …}`, `{"denied": …}`).
    Detailed(ReviewDecisionDetail),
}

/// A decision without data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReviewDecisionName {
    /// Run it (same as `approved`).
    Allow,
    /// Do not run it; the turn goes on (same as `denied`).
    Deny,
    /// Run it.
    Approved,
    /// Run it, and do not ask again for the same command (or paths) in this conversation.
    ApprovedForSession,
    /// Same as `approved_for_session` in Tandem.
    ApprovedMcpPolicyAmendment,
    /// Do not run it; the turn goes on.
    Denied,
    /// The question timed out; treated as `denied`.
    TimedOut,
    /// Do not run it and stop the turn.
    Abort,
}

/// A decision with data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReviewDecisionDetail {
    /// Run it, and allow commands starting with this prefix from now on (in Tandem: this
    /// exact command, for the rest of the conversation).
    ApprovedExecpolicyAmendment {
        /// The argv prefix.
        proposed_execpolicy_amendment: Vec<String>,
    },
    /// Do not run it; the turn goes on.
    Denied {
        /// Why, for the model.
        rejection: String,
    },
    /// Allow or deny a network host; treated as `approved`.
    NetworkPolicyAmendment {
        /// The amendment (`{host, action}`).
        network_policy_amendment: serde_json::Value,
    },
}

/// Params of the server request `applyPatchApproval`: may this patch be applied? Legacy;
/// sent for conversations instead of `item/fileChange/requestApproval`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApplyPatchApprovalParams {
    /// The conversation (thread) id.
    pub conversation_id: String,
    /// The model's call id.
    pub call_id: String,
    /// The changes by absolute path.
    pub file_changes: BTreeMap<String, FileChange>,
    /// Why approval is needed.
    pub reason: Option<String>,
    /// A directory the patch would make writable for the rest of the session.
    pub grant_root: Option<String>,
}

/// Params of the server request `execCommandApproval`: may this command run? Legacy; sent
/// for conversations instead of `item/commandExecution/requestApproval`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExecCommandApprovalParams {
    /// The conversation (thread) id.
    pub conversation_id: String,
    /// The model's call id.
    pub call_id: String,
    /// Approval id; `null` (one approval per call).
    pub approval_id: Option<String>,
    /// The command as argv.
    pub command: Vec<String>,
    /// Working directory.
    pub cwd: String,
    /// Why approval is needed.
    pub reason: Option<String>,
    /// What the command does, as far as it could be parsed.
    pub parsed_cmd: Vec<ParsedCommand>,
}

/// The answer to `applyPatchApproval` or `execCommandApproval`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ReviewDecisionResponse {
    /// The decision.
    pub decision: ReviewDecision,
}
