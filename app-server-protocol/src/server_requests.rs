//! Params and responses of server-initiated requests: approvals and questions for the user.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::item::CommandAction;

/// Parameters of `item/commandExecution/requestApproval`: may this command run?
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommandExecutionRequestApprovalParams {
    /// What is being approved.
    #[serde(default)]
    pub kind: CommandExecutionApprovalKind,
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The commandExecution item (the model's `call_id`).
    pub item_id: String,
    /// When the item started (Unix milliseconds).
    pub started_at_ms: i64,
    /// Execution environment (`local`).
    #[serde(default)]
    pub environment_id: Option<String>,
    /// Why approval is needed (for example, to run outside the sandbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub reason: Option<String>,
    /// The command, shell-joined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub command: Option<String>,
    /// Working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub cwd: Option<String>,
    /// What the command does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub command_actions: Option<Vec<CommandAction>>,
    /// Argv prefix that `acceptWithExecpolicyAmendment` would allow from now on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub proposed_execpolicy_amendment: Option<Vec<String>>,
    /// Decisions the client may answer with. @experimental
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub available_decisions: Option<Vec<CommandExecutionApprovalDecision>>,
}

/// What a command approval is about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum CommandExecutionApprovalKind {
    /// A new command.
    #[default]
    Command,
    /// Input to a running command.
    WriteStdin,
    /// A command typed by the user.
    HumanCommand,
}

/// Answer to `item/commandExecution/requestApproval`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CommandExecutionRequestApprovalResponse {
    /// The decision.
    pub decision: CommandExecutionApprovalDecision,
}

/// A decision on a command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum CommandExecutionApprovalDecision {
    /// Run it.
    Accept,
    /// Run it, and run the identical command again in this thread without asking.
    AcceptForSession,
    /// Run it and accept the proposed exec-policy amendment; Tandem has no exec-policy engine, so
    /// this approves the identical command for the rest of the thread, like `acceptForSession`.
    AcceptWithExecpolicyAmendment {
        /// The argv prefix (snake_case on the wire).
        execpolicy_amendment: Vec<String>,
    },
    /// Do not run it; the turn goes on and the model is told.
    Decline,
    /// Do not run it and end the turn as interrupted.
    Cancel,
}

/// Parameters of `item/fileChange/requestApproval`: may these edits be written? The edits are
/// in the preceding `item/started` fileChange item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileChangeRequestApprovalParams {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The fileChange item (the model's `call_id`).
    pub item_id: String,
    /// When the item started (Unix milliseconds).
    pub started_at_ms: i64,
    /// Why approval is needed.
    #[serde(default)]
    pub reason: Option<String>,
    /// A directory the agent asks to be able to write to for the rest of the session.
    #[serde(default)]
    pub grant_root: Option<String>,
}

/// Answer to `item/fileChange/requestApproval`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct FileChangeRequestApprovalResponse {
    /// The decision.
    pub decision: FileChangeApprovalDecision,
}

/// A decision on a file change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum FileChangeApprovalDecision {
    /// Write the changes.
    Accept,
    /// Write them, and stop asking for changes to the same files in this thread.
    AcceptForSession,
    /// Do not write them; the turn goes on and the model is told.
    Decline,
    /// Do not write them and end the turn as interrupted.
    Cancel,
}

/// Parameters of `item/tool/requestUserInput`: questions the model asks the user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequestUserInputParams {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The tool call (the model's `call_id`).
    pub item_id: String,
    /// One to three questions.
    pub questions: Vec<ToolRequestUserInputQuestion>,
    /// Whether the turn waits for the answer.
    pub is_blocking: bool,
    /// Resolve automatically after this many milliseconds; `null` means never.
    #[serde(default)]
    pub auto_resolution_ms: Option<u64>,
}

/// One question for the user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequestUserInputQuestion {
    /// Question id, the key of its answer.
    pub id: String,
    /// Short header.
    pub header: String,
    /// The question.
    pub question: String,
    /// Whether a free-form "other" answer is allowed.
    #[serde(default)]
    pub is_other: bool,
    /// Whether the answer is secret (do not echo it).
    #[serde(default)]
    pub is_secret: bool,
    /// Choices, if any.
    #[serde(default)]
    pub options: Option<Vec<ToolRequestUserInputOption>>,
}

/// A choice offered for a question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ToolRequestUserInputOption {
    /// The choice as shown and as answered.
    pub label: String,
    /// What it means.
    pub description: String,
}

/// Answer to `item/tool/requestUserInput`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ToolRequestUserInputResponse {
    /// Answers keyed by question id.
    pub answers: BTreeMap<String, ToolRequestUserInputAnswer>,
}

/// The answer to one question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ToolRequestUserInputAnswer {
    /// Chosen labels or free-form text.
    pub answers: Vec<String>,
}
