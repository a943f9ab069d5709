//! Codex's own event payloads (`Event` / `EventMsg`), carried by the `codex/event` notification.
//!
//! The MCP server sends one `codex/event` per engine event of a running `codex` or
//! `codex-reply` call, and the app-server sends them for the threads a client opened through
//! the first-generation conversation API (`newConversation`, `resumeConversation`). The shapes
//! are the ones observed on the last Codex release that had `codex mcp-server`: the tag is
//! `type` and the fields are snake_case, unlike the rest of the protocol.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::item::{MessagePhase, UserInput};
use crate::jsonrpc::RequestId;
use crate::legacy::{FileChange, ParsedCommand, ReviewDecision};

/// Params of `codex/event`: one Codex event with the envelope that says what it belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CodexEventNotification {
    /// What the event belongs to.
    #[serde(rename = "_meta")]
    #[ts(rename = "_meta")]
    pub meta: CodexEventMeta,
    /// The turn id, or `""` for session-level events (`session_configured`,
    /// `mcp_startup_complete`).
    pub id: String,
    /// The event.
    pub msg: EventMsg,
}

/// The envelope of a `codex/event`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CodexEventMeta {
    /// Over MCP, the id of the `tools/call` request whose turn produced the event; on the
    /// app-server, the id of the `sendUserMessage` / `sendUserTurn` request that started the
    /// turn. `null` for events that belong to no request.
    #[serde(default)]
    pub request_id: Option<RequestId>,
    /// The thread (conversation) the event belongs to.
    pub thread_id: String,
}

/// One Codex event: what happened in a session, tagged by `type` (snake_case).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "snake_case"
)]
pub enum EventMsg {
    /// The session (thread) is ready; the first event of a new conversation.
    SessionConfigured {
        /// Session id; equal to `thread_id` for root threads.
        session_id: String,
        /// Thread id.
        thread_id: String,
        /// Model slug in effect.
        model: String,
        /// Model provider id in effect.
        model_provider_id: String,
        /// Approval policy in effect (`untrusted`, `on-request`, `never`).
        approval_policy: String,
        /// Who reviews approvals; always `user` in Tandem.
        approvals_reviewer: String,
        /// The sandbox as a permission profile: file-system entries and network access.
        permission_profile: serde_json::Value,
        /// The named profile in effect (`:read-only`, `:workspace-write`,
        /// `:danger-full-access`).
        active_permission_profile: ActivePermissionProfile,
        /// Working directory (absolute).
        cwd: String,
        /// Reasoning effort in effect, when one is set.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        reasoning_effort: Option<crate::policy::ReasoningEffort>,
        /// Absolute path of the rollout file; `null` for ephemeral threads.
        rollout_path: Option<String>,
    },
    /// MCP servers of the session finished starting; Tandem starts none, so the lists are
    /// empty.
    McpStartupComplete {
        /// Servers that started.
        ready: Vec<String>,
        /// Servers that failed to start.
        failed: Vec<serde_json::Value>,
        /// Servers whose start was cancelled.
        cancelled: Vec<String>,
    },
    /// A warning for the user.
    Warning {
        /// The warning.
        message: String,
    },
    /// A turn error (before `task_complete` or `turn_aborted`, or while retrying).
    Error {
        /// The error message.
        message: String,
    },
    /// A turn started.
    TaskStarted {
        /// Turn id.
        turn_id: String,
        /// Start time (Unix seconds).
        started_at: Option<i64>,
        /// The model's context window in tokens, when known.
        model_context_window: Option<i64>,
        /// Collaboration mode of the turn (`default` or `plan`).
        collaboration_mode_kind: String,
    },
    /// A turn item started (user message, agent message, reasoning, plan).
    ItemStarted {
        /// Thread id.
        thread_id: String,
        /// Turn id.
        turn_id: String,
        /// The item as it starts.
        item: TurnItem,
        /// Start time (Unix milliseconds).
        started_at_ms: i64,
    },
    /// A turn item completed.
    ItemCompleted {
        /// Thread id.
        thread_id: String,
        /// Turn id.
        turn_id: String,
        /// The item's final state.
        item: TurnItem,
        /// Start time (Unix milliseconds).
        started_at_ms: i64,
        /// Completion time (Unix milliseconds).
        completed_at_ms: i64,
    },
    /// The user's message of the turn, after its `item_completed`.
    UserMessage {
        /// The text of the message (text inputs joined).
        message: String,
        /// Image URLs of the message.
        images: Vec<String>,
        /// Local image paths of the message.
        local_images: Vec<String>,
        /// Audio URLs; always empty in Tandem.
        audio: Vec<String>,
        /// Local audio paths; always empty in Tandem.
        local_audio: Vec<String>,
        /// UI elements of the text; always empty in Tandem.
        text_elements: Vec<serde_json::Value>,
    },
    /// Text appended to an agent message.
    AgentMessageContentDelta {
        /// Thread id.
        thread_id: String,
        /// Turn id.
        turn_id: String,
        /// The agent message item's id.
        item_id: String,
        /// The appended text.
        delta: String,
    },
    /// A complete agent message, after its `item_completed`.
    AgentMessage {
        /// The whole text.
        message: String,
        /// Commentary or final answer, when the model says so.
        phase: Option<MessagePhase>,
        /// Memory citation; always `null` in Tandem.
        memory_citation: Option<serde_json::Value>,
    },
    /// Text appended to a reasoning summary.
    AgentReasoningDelta {
        /// The appended text.
        delta: String,
    },
    /// Raw reasoning text appended.
    AgentReasoningRawContentDelta {
        /// The appended text.
        delta: String,
    },
    /// A complete reasoning summary.
    AgentReasoning {
        /// The summary text.
        text: String,
    },
    /// The agent asks whether a command may run; the client is asked separately
    /// (`elicitation/create` over MCP, `execCommandApproval` on the app-server).
    ExecApprovalRequest {
        /// Always `command`.
        kind: String,
        /// The model's call id.
        call_id: String,
        /// Turn id.
        turn_id: String,
        /// Execution environment; always `local`.
        #[serde(rename = "environmentId")]
        #[ts(rename = "environmentId")]
        environment_id: String,
        /// When the request was made (Unix milliseconds).
        started_at_ms: i64,
        /// The command as argv.
        command: Vec<String>,
        /// Working directory.
        cwd: String,
        /// Why approval is needed.
        reason: Option<String>,
        /// The prefix that `approved_execpolicy_amendment` would allow from now on.
        proposed_execpolicy_amendment: Option<Vec<String>>,
        /// The decisions the client may answer with.
        available_decisions: Vec<ReviewDecision>,
        /// What the command does, as far as it could be parsed.
        parsed_cmd: Vec<ParsedCommand>,
    },
    /// A command started running.
    ExecCommandBegin {
        /// The model's call id.
        call_id: String,
        /// Process id, when known.
        process_id: Option<String>,
        /// Turn id.
        turn_id: String,
        /// Start time (Unix milliseconds).
        started_at_ms: i64,
        /// The command as argv.
        command: Vec<String>,
        /// Working directory as a `file://` URL, as Codex sends it.
        cwd: String,
        /// What the command does, as far as it could be parsed.
        parsed_cmd: Vec<ParsedCommand>,
        /// What started the command (`agent`, `unified_exec_startup`, …).
        source: String,
    },
    /// Output of a running command.
    ExecCommandOutputDelta {
        /// The model's call id.
        call_id: String,
        /// `stdout` (Tandem captures stdout and stderr interleaved).
        stream: String,
        /// The bytes, base64-encoded.
        chunk: String,
    },
    /// A command finished (or was declined, with no `exec_command_begin` before).
    ExecCommandEnd {
        /// The model's call id.
        call_id: String,
        /// Process id, when known.
        process_id: Option<String>,
        /// Turn id.
        turn_id: String,
        /// End time (Unix milliseconds).
        completed_at_ms: i64,
        /// The command as argv.
        command: Vec<String>,
        /// Working directory as a `file://` URL, as Codex sends it.
        cwd: String,
        /// What the command does, as far as it could be parsed.
        parsed_cmd: Vec<ParsedCommand>,
        /// What started the command.
        source: String,
        /// Standard output. Tandem captures stdout and stderr interleaved, so this is the
        /// whole output.
        stdout: String,
        /// Standard error; empty in Tandem (see `stdout`).
        stderr: String,
        /// stdout and stderr interleaved.
        aggregated_output: String,
        /// Exit code (`-1` when the command did not exit by itself).
        exit_code: i32,
        /// Run time.
        duration: EventDuration,
        /// The output as the model saw it.
        formatted_output: String,
        /// `completed`, `failed` or `declined`.
        status: String,
    },
    /// The agent asks whether a patch may be applied; the client is asked separately
    /// (`elicitation/create` over MCP, `applyPatchApproval` on the app-server).
    ApplyPatchApprovalRequest {
        /// The model's call id.
        call_id: String,
        /// Turn id.
        turn_id: String,
        /// When the request was made (Unix milliseconds).
        started_at_ms: i64,
        /// The changes by absolute path.
        changes: BTreeMap<String, FileChange>,
        /// Why approval is needed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        reason: Option<String>,
        /// A directory the patch would make writable for the rest of the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        grant_root: Option<String>,
    },
    /// A patch is being applied.
    PatchApplyBegin {
        /// The model's call id.
        call_id: String,
        /// Turn id.
        turn_id: String,
        /// Whether it was applied without asking the user.
        auto_approved: bool,
        /// The changes by absolute path.
        changes: BTreeMap<String, FileChange>,
    },
    /// A patch was applied, failed or was declined.
    PatchApplyEnd {
        /// The model's call id.
        call_id: String,
        /// Turn id.
        turn_id: String,
        /// The summary the model saw (`Success. Updated the following files: …`).
        stdout: String,
        /// Why it failed, if it did.
        stderr: String,
        /// Whether every change was written.
        success: bool,
        /// The changes by absolute path.
        changes: BTreeMap<String, FileChange>,
        /// `completed`, `failed` or `declined`.
        status: String,
    },
    /// The turn's aggregated diff changed.
    TurnDiff {
        /// The unified diff of the turn so far.
        unified_diff: String,
    },
    /// The agent's plan changed.
    PlanUpdate {
        /// Why the plan changed.
        explanation: Option<String>,
        /// The steps.
        plan: Vec<PlanItem>,
    },
    /// Text appended to the proposed plan of a plan-mode turn.
    PlanDelta {
        /// The thread.
        thread_id: String,
        /// The turn.
        turn_id: String,
        /// The plan item.
        item_id: String,
        /// Text appended to the plan.
        delta: String,
    },
    /// The changes of a patch as known so far (the whole list each time).
    PatchApplyUpdated {
        /// The patch's call id (its `fileChange` item).
        call_id: String,
        /// The changes by absolute path.
        changes: BTreeMap<String, FileChange>,
    },
    /// An MCP server reported progress on a tool call.
    McpToolCallProgress {
        /// The call id (its `mcpToolCall` item).
        call_id: String,
        /// The server's message, or its progress as numbers.
        message: String,
    },
    /// The model wrote to (or polled) a command it left running.
    TerminalInteraction {
        /// The command's call id (its `commandExecution` item).
        call_id: String,
        /// The command's session id, as the model names it.
        process_id: String,
        /// What was written to its stdin; empty for a poll.
        stdin: String,
    },
    /// The thread's history was compacted.
    ContextCompacted {},
    /// Token usage after a model response.
    TokenCount {
        /// Usage totals; `null` before the first response.
        info: Option<TokenUsageInfo>,
        /// Rate limits; Tandem reports none, so every window is `null`.
        rate_limits: Option<RateLimitSnapshot>,
    },
    /// A turn completed.
    TaskComplete {
        /// Turn id.
        turn_id: String,
        /// The last agent message of the turn.
        last_agent_message: Option<String>,
        /// Start time (Unix seconds).
        started_at: Option<i64>,
        /// Completion time (Unix seconds).
        completed_at: Option<i64>,
        /// Duration in milliseconds.
        duration_ms: Option<i64>,
        /// Time from the turn's start to the first streamed token, in milliseconds.
        time_to_first_token_ms: Option<i64>,
    },
    /// A turn ended without completing (interrupted, or failed).
    TurnAborted {
        /// Turn id.
        turn_id: String,
        /// `interrupted` or `failed`.
        reason: String,
        /// Start time (Unix seconds).
        started_at: Option<i64>,
        /// Completion time (Unix seconds).
        completed_at: Option<i64>,
        /// Duration in milliseconds.
        duration_ms: Option<i64>,
    },
}

/// One step of a `plan_update` (Codex's `PlanItemArg`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct PlanItem {
    /// What to do.
    pub step: String,
    /// How far along it is.
    pub status: StepStatus,
}

/// Status of a plan step, snake_case as Codex spells it (the thread API's
/// `turn/plan/updated` says `inProgress`; this event says `in_progress`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// The named permission profile of a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ActivePermissionProfile {
    /// `:read-only`, `:workspace-write` or `:danger-full-access`.
    pub id: String,
}

/// A duration as Rust's `std::time::Duration` serializes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct EventDuration {
    /// Whole seconds.
    pub secs: u64,
    /// Nanoseconds past the whole seconds.
    pub nanos: u32,
}

/// A turn item as Codex's `item_started` / `item_completed` carry it (tagged by `type`,
/// PascalCase).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all_fields = "snake_case")]
pub enum TurnItem {
    /// The user's message.
    UserMessage {
        /// Item id.
        id: String,
        /// The inputs.
        content: Vec<UserInput>,
    },
    /// An agent message.
    AgentMessage {
        /// Item id.
        id: String,
        /// The text so far, as one `Text` part (none in `item_started`).
        content: Vec<AgentMessageContent>,
        /// Commentary or final answer, when the model says so.
        phase: Option<MessagePhase>,
        /// Memory citation; always `null` in Tandem.
        memory_citation: Option<serde_json::Value>,
    },
    /// The model's reasoning.
    Reasoning {
        /// Item id.
        id: String,
        /// Summary parts.
        summary_text: Vec<String>,
        /// Raw reasoning parts.
        raw_content: Vec<String>,
    },
    /// The agent's plan as text.
    Plan {
        /// Item id.
        id: String,
        /// The plan.
        text: String,
    },
}

/// A part of an agent message (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type")]
pub enum AgentMessageContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
}

/// Token usage of a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct TokenUsageInfo {
    /// Cumulative usage.
    pub total_token_usage: TokenUsage,
    /// Usage of the last model response.
    pub last_token_usage: TokenUsage,
    /// The model's context window in tokens, when known.
    pub model_context_window: Option<i64>,
}

/// Token counts (snake_case).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct TokenUsage {
    /// Prompt tokens.
    pub input_tokens: i64,
    /// Prompt tokens served from cache.
    pub cached_input_tokens: i64,
    /// Prompt tokens written to cache.
    pub cache_write_input_tokens: i64,
    /// Generated tokens.
    pub output_tokens: i64,
    /// Generated reasoning tokens.
    pub reasoning_output_tokens: i64,
    /// Input plus output tokens.
    pub total_tokens: i64,
}

/// Rate limits as Codex reports them with `token_count`; Tandem knows none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RateLimitSnapshot {
    /// Limit id (`codex`).
    pub limit_id: Option<String>,
    /// Limit name.
    pub limit_name: Option<String>,
    /// Primary window.
    pub primary: Option<serde_json::Value>,
    /// Secondary window.
    pub secondary: Option<serde_json::Value>,
    /// Credits.
    pub credits: Option<serde_json::Value>,
    /// Individual spend limit.
    pub individual_limit: Option<serde_json::Value>,
    /// Whether spend control was reached.
    pub spend_control_reached: Option<bool>,
    /// Plan type.
    pub plan_type: Option<String>,
    /// Which limit was reached.
    pub rate_limit_reached_type: Option<String>,
}
