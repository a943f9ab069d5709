//! Thread items (messages, reasoning, commands, file changes, plans) and user input.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One unit of a turn's content, with its lifecycle times. The payload stays flat on the wire:
/// `{"type": "agentMessage", "id": …, …, "startedAtMs": …, "completedAtMs": …}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadItem {
    /// The item's kind and content.
    #[serde(flatten)]
    pub details: ThreadItemDetails,
    /// When the item started (Unix milliseconds).
    #[serde(default)]
    pub started_at_ms: Option<i64>,
    /// When the item completed (Unix milliseconds); `null` while in progress.
    #[serde(default)]
    pub completed_at_ms: Option<i64>,
}

impl ThreadItemDetails {
    /// The item's id.
    pub fn id(&self) -> &str {
        match self {
            ThreadItemDetails::UserMessage { id, .. }
            | ThreadItemDetails::AgentMessage { id, .. }
            | ThreadItemDetails::Plan { id, .. }
            | ThreadItemDetails::Reasoning { id, .. }
            | ThreadItemDetails::CommandExecution { id, .. }
            | ThreadItemDetails::FileChange { id, .. }
            | ThreadItemDetails::DynamicToolCall { id, .. }
            | ThreadItemDetails::McpToolCall { id, .. }
            | ThreadItemDetails::ImageView { id, .. }
            | ThreadItemDetails::ContextCompaction { id, .. }
            | ThreadItemDetails::HookPrompt { id, .. }
            | ThreadItemDetails::EnteredReviewMode { id, .. }
            | ThreadItemDetails::ExitedReviewMode { id, .. } => id,
        }
    }
}

/// The kind and content of a thread item (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ThreadItemDetails {
    /// A message from the user.
    UserMessage {
        /// Item id (UUIDv7).
        id: String,
        /// Client-chosen id of the message (`clientUserMessageId`).
        #[serde(default)]
        client_id: Option<String>,
        /// The inputs, echoed with defaults filled in.
        content: Vec<UserInput>,
    },
    /// A message from the agent; its text streams as `item/agentMessage/delta`.
    AgentMessage {
        /// Moderation result; always `null` in Tandem.
        #[serde(default)]
        moderation: Option<serde_json::Value>,
        /// Item id, as given by the model stream (for example `msg_2`).
        id: String,
        /// The full text so far (`""` in `item/started`).
        text: String,
        /// Whether this is commentary or the final answer, when the model says so.
        #[serde(default)]
        phase: Option<MessagePhase>,
        /// Memory citation; always `null` in Tandem.
        #[serde(default)]
        memory_citation: Option<serde_json::Value>,
        /// Delivery mode; always `null` in Tandem.
        #[serde(default)]
        delivery: Option<String>,
        /// Questions attached to the message; always `null` in Tandem.
        #[serde(default)]
        questions: Option<serde_json::Value>,
    },
    /// The agent's plan as text.
    Plan {
        /// Item id.
        id: String,
        /// The plan.
        text: String,
    },
    /// The model's reasoning: summary parts and raw reasoning text.
    Reasoning {
        /// Item id, as given by the model stream (for example `rs_8`).
        id: String,
        /// Summary parts (`item/reasoning/summaryTextDelta`).
        #[serde(default)]
        summary: Vec<String>,
        /// Raw reasoning parts (`item/reasoning/textDelta`).
        #[serde(default)]
        content: Vec<String>,
    },
    /// A shell command run by the agent.
    CommandExecution {
        /// Item id: the model's `call_id`.
        id: String,
        /// Plugin that ran the command; always `null` in Tandem.
        #[serde(default)]
        plugin_id: Option<String>,
        /// Script path; always `null` in Tandem.
        #[serde(default)]
        script_path: Option<String>,
        /// The command, shell-joined (`/bin/bash -c '…'`).
        command: String,
        /// Working directory (absolute).
        cwd: String,
        /// Process id once the command runs.
        #[serde(default)]
        process_id: Option<String>,
        /// What started the command.
        #[serde(default)]
        source: CommandExecutionSource,
        /// Lifecycle status.
        status: CommandExecutionStatus,
        /// What the command does, as far as it could be parsed.
        command_actions: Vec<CommandAction>,
        /// stdout and stderr interleaved; `null` until the command ran.
        #[serde(default)]
        aggregated_output: Option<String>,
        /// Exit code; `null` until the command ran.
        #[serde(default)]
        exit_code: Option<i32>,
        /// Run time in milliseconds; `null` until the command ran.
        #[serde(default)]
        duration_ms: Option<i64>,
    },
    /// A set of file edits (from `apply_patch`).
    FileChange {
        /// Item id: the model's `call_id`.
        id: String,
        /// One entry per file.
        changes: Vec<FileUpdateChange>,
        /// Lifecycle status.
        status: PatchApplyStatus,
    },
    /// A tool call answered outside the command and patch machinery: a tool the client declared
    /// at `thread/start` (`dynamicTools`, run by the client through `item/tool/call`), or
    /// Tandem's own `query_project` (the project index). Its output reaches the model as
    /// `contentItems`.
    DynamicToolCall {
        /// Item id: the model's `call_id`.
        id: String,
        /// The namespace a client-declared tool belongs to; `null` for a top-level tool.
        #[serde(default)]
        namespace: Option<String>,
        /// Tool name, as the model called it.
        tool: String,
        /// The arguments as the model sent them (`null` when they were not valid JSON).
        arguments: serde_json::Value,
        /// Lifecycle status.
        status: DynamicToolCallStatus,
        /// What the tool returned to the model; `null` while in progress.
        #[serde(default)]
        content_items: Option<Vec<DynamicToolCallOutputContentItem>>,
        /// Whether the call succeeded; `null` while in progress.
        #[serde(default)]
        success: Option<bool>,
        /// Run time in milliseconds; `null` while in progress.
        #[serde(default)]
        duration_ms: Option<i64>,
    },
    /// A call to a tool of an MCP server (offered to the model as `mcp__<server>__<tool>`).
    McpToolCall {
        /// Item id: the model's `call_id`.
        id: String,
        /// The server's name under `[mcp_servers]`.
        server: String,
        /// The tool's name on the server.
        tool: String,
        /// Lifecycle status.
        status: crate::mcp_servers::McpToolCallStatus,
        /// The arguments the model passed.
        arguments: serde_json::Value,
        /// App context; always `null` in Tandem.
        #[serde(default)]
        app_context: Option<serde_json::Value>,
        /// MCP app resource; always `null` in Tandem.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        mcp_app_resource_uri: Option<String>,
        /// MCP app UI; always `null` in Tandem.
        #[serde(default)]
        mcp_app_ui: Option<serde_json::Value>,
        /// Plugin; always `null` in Tandem.
        #[serde(default)]
        plugin_id: Option<String>,
        /// Whether the server marks the tool read-only (`annotations.readOnlyHint`).
        #[serde(default)]
        read_only_hint: Option<bool>,
        /// The server's result once completed; `null` otherwise.
        #[serde(default)]
        result: Option<crate::mcp_servers::McpToolCallResult>,
        /// Why the call failed; `null` otherwise.
        #[serde(default)]
        error: Option<crate::mcp_servers::McpToolCallError>,
        /// Time from the call to its end in milliseconds; `null` while in progress.
        #[serde(default)]
        duration_ms: Option<i64>,
    },
    /// The agent looked at an image.
    ImageView {
        /// Item id.
        id: String,
        /// Absolute path of the image.
        path: String,
    },
    /// The conversation history was compacted.
    ContextCompaction {
        /// Item id.
        id: String,
    },
    /// A `Stop` hook sent the model back to work: the reasons it gave, sent as the next input.
    HookPrompt {
        /// Item id.
        id: String,
        /// One reason per hook run that blocked.
        fragments: Vec<crate::hooks::HookPromptFragment>,
    },
    /// A `review/start` turn began reviewing.
    EnteredReviewMode {
        /// Item id.
        id: String,
        /// What is reviewed, in a few words (`current changes`, `commit 1a2b3c4`, …).
        review: String,
    },
    /// A `review/start` turn finished reviewing.
    ExitedReviewMode {
        /// Item id.
        id: String,
        /// The review as text: the overall explanation, then each finding with its title,
        /// location and body (or why there is no review).
        review: String,
    },
}

/// Whether agent text is commentary, a partial answer or the final answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum MessagePhase {
    /// Commentary while working.
    Commentary,
    /// Part of an answer.
    PartialAnswer,
    /// The final answer.
    FinalAnswer,
}

/// One piece of user input (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum UserInput {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Ranges of the text that stand for UI elements (snake_case on the wire).
        #[serde(
            rename = "text_elements",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        #[ts(rename = "text_elements", optional)]
        text_elements: Option<Vec<TextElement>>,
    },
    /// An image by URL (including `data:` URLs).
    Image {
        /// The image URL.
        url: String,
        /// Requested detail level.
        #[serde(default)]
        #[ts(optional = nullable)]
        detail: Option<ImageDetail>,
    },
    /// An image file on the server's machine.
    LocalImage {
        /// Requested detail level.
        #[serde(default)]
        #[ts(optional = nullable)]
        detail: Option<ImageDetail>,
        /// Path of the image file.
        path: String,
    },
    /// Audio by URL or uploaded-file id. Accepted into the thread; a turn whose input holds
    /// audio fails with an error, since none of Tandem's model providers take audio.
    Audio {
        /// The audio URL (including `data:` URLs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        url: Option<String>,
        /// An uploaded file's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        file_id: Option<String>,
    },
    /// An audio file on the server's machine; fails the turn like `audio`.
    LocalAudio {
        /// Path of the audio file.
        path: String,
    },
    /// A skill the user invoked: its name and the path of its `SKILL.md` reach the model as
    /// context.
    Skill {
        /// Skill name.
        name: String,
        /// Path of the skill's `SKILL.md`.
        path: String,
    },
    /// Something the user mentioned (an app `app://<id>`, a plugin `plugin://name@marketplace`,
    /// a file): its name and path reach the model as context.
    Mention {
        /// Display name.
        name: String,
        /// What the mention points at.
        path: String,
    },
}

/// A range of a text input that stands for a UI element.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TextElement {
    /// Byte range in the text.
    pub byte_range: ByteRange,
    /// Placeholder shown for the element.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub placeholder: Option<String>,
}

/// A half-open byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ByteRange {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// Detail level for image inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ImageDetail {
    /// Let the model choose.
    Auto,
    /// Low detail.
    Low,
    /// High detail.
    High,
    /// Original resolution.
    Original,
}

/// What a command does, as parsed from its text (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum CommandAction {
    /// Reads a file.
    Read {
        /// The (sub)command.
        command: String,
        /// File name.
        name: String,
        /// File path.
        path: String,
    },
    /// Lists files.
    ListFiles {
        /// The (sub)command.
        command: String,
        /// Directory listed.
        #[serde(default)]
        path: Option<String>,
    },
    /// Searches files.
    Search {
        /// The (sub)command.
        command: String,
        /// Search query.
        #[serde(default)]
        query: Option<String>,
        /// Where it searches.
        #[serde(default)]
        path: Option<String>,
    },
    /// Anything else.
    Unknown {
        /// The (sub)command.
        command: String,
    },
}

/// Lifecycle status of a command item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum CommandExecutionStatus {
    /// Waiting for approval or running.
    InProgress,
    /// Ran to completion (any exit code).
    Completed,
    /// Could not run, or the approval request failed.
    Failed,
    /// The user declined it.
    Declined,
}

/// Lifecycle status of a dynamic tool call item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum DynamicToolCallStatus {
    /// Running.
    InProgress,
    /// Returned a result.
    Completed,
    /// Returned an error.
    Failed,
}

/// One piece of a dynamic tool call's output (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum DynamicToolCallOutputContentItem {
    /// Text (for `query_project`, the JSON payload or the error message).
    InputText {
        /// The text.
        text: String,
    },
    /// An image, shown to the model after the call's output.
    InputImage {
        /// The image as a URL (a `data:` URL or an `https:` one).
        image_url: String,
    },
    /// Audio. Tandem's model clients send no audio: the model is told that audio was
    /// returned and left out.
    InputAudio {
        /// The audio as a URL.
        audio_url: String,
    },
}

/// What started a command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum CommandExecutionSource {
    /// The agent (model tool call).
    #[default]
    Agent,
    /// The user's own shell command.
    UserShell,
    /// The start of a unified-exec session.
    UnifiedExecStartup,
    /// Input written to a running unified-exec session.
    UnifiedExecInteraction,
}

/// The change to one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct FileUpdateChange {
    /// Absolute path of the file.
    pub path: String,
    /// Add, delete or update.
    pub kind: PatchChangeKind,
    /// For `add` the new content, for `delete` the old content, for `update` a unified hunk.
    pub diff: String,
}

/// Kind of a file change (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PatchChangeKind {
    /// A new file.
    Add,
    /// A removed file.
    Delete,
    /// An edited file, possibly moved.
    Update {
        /// New path when the file is moved (snake_case on the wire).
        #[serde(default)]
        move_path: Option<String>,
    },
}

/// Lifecycle status of a file-change item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum PatchApplyStatus {
    /// Waiting for approval or being applied.
    InProgress,
    /// Applied.
    Completed,
    /// Could not be applied.
    Failed,
    /// The user declined it.
    Declined,
}
