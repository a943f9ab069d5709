//! Decisions the engine needs from the user: command and file-change approvals, answers to
//! the model's questions, the output of the tools the client declared, and permission grants.
//!
//! The engine asks through the narrow [`Approver`] trait and never learns how the question
//! travels: the stdio processor sends a server→client request, the MCP adapter an elicitation.
//! Whoever implements it owns the request ids and the `serverRequest/resolved` bookkeeping.

use std::future::Future;
use std::pin::Pin;

use app_server_protocol::dialogs::{
    AgentAskUserQuestionParams, AgentRequestUserInputParams, QuestionAnswersResponse,
};
use app_server_protocol::dynamic_tools::{DynamicToolCallParams, DynamicToolCallResponse};
use app_server_protocol::mcp_servers::{
    McpServerElicitationRequestParams, McpServerElicitationRequestResponse,
};
use app_server_protocol::permissions::{
    PermissionsRequestApprovalParams, PermissionsRequestApprovalResponse,
};
use app_server_protocol::server_requests::{
    CommandExecutionApprovalDecision, CommandExecutionRequestApprovalParams,
    FileChangeApprovalDecision, FileChangeRequestApprovalParams, ToolRequestUserInputParams,
    ToolRequestUserInputResponse,
};
use tokio_util::sync::CancellationToken;

use crate::audit::wire_name;

/// One question for the user.
#[derive(Debug, Clone)]
pub enum ApprovalRequest {
    /// May this command run?
    Command(CommandExecutionRequestApprovalParams),
    /// May this patch be written? The changes are in the `fileChange` item already emitted.
    FileChange(FileChangeRequestApprovalParams),
    /// The model asks the user one to three questions.
    UserInput(ToolRequestUserInputParams),
    /// The model asks the user for free-form text (`ask_user`).
    FreeText(AgentRequestUserInputParams),
    /// The model asks single- or multi-choice questions (`ask_user_question`).
    Choices(AgentAskUserQuestionParams),
    /// An MCP server asks the user something, or Tandem asks whether an MCP tool may run.
    McpElicitation(McpServerElicitationRequestParams),
    /// The model called a tool the client declared (`dynamicTools`): the client runs it.
    DynamicToolCall(DynamicToolCallParams),
    /// The model asks for more than the sandbox gives (`request_permissions`).
    Permissions(PermissionsRequestApprovalParams),
}

impl ApprovalRequest {
    /// The kind of question, as named in the audit trail.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ApprovalRequest::Command(_) => "command",
            ApprovalRequest::FileChange(_) => "file_change",
            ApprovalRequest::UserInput(_) => "user_input",
            ApprovalRequest::FreeText(_) => "free_text",
            ApprovalRequest::Choices(_) => "choices",
            ApprovalRequest::McpElicitation(_) => "mcp_elicitation",
            ApprovalRequest::DynamicToolCall(_) => "dynamic_tool_call",
            ApprovalRequest::Permissions(_) => "permissions",
        }
    }

    /// The thread the question belongs to.
    pub fn thread_id(&self) -> &str {
        match self {
            ApprovalRequest::Command(params) => &params.thread_id,
            ApprovalRequest::FileChange(params) => &params.thread_id,
            ApprovalRequest::UserInput(params) => &params.thread_id,
            ApprovalRequest::FreeText(params) => &params.thread_id,
            ApprovalRequest::Choices(params) => &params.thread_id,
            ApprovalRequest::McpElicitation(params) => &params.thread_id,
            ApprovalRequest::DynamicToolCall(params) => &params.thread_id,
            ApprovalRequest::Permissions(params) => &params.thread_id,
        }
    }
}

/// How a question ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ApprovalReply {
    /// The user answered. Each front end decodes its own wire shapes into this typed answer,
    /// so the engine never reads JSON.
    Answered(ApprovalAnswer),
    /// The client answered with an error, or the question could not be asked; the message
    /// says why.
    Failed(String),
    /// Nobody will answer: the turn was cancelled (interrupt, shutdown) or the client went
    /// away. The engine ends the turn without running anything.
    Withdrawn,
}

impl ApprovalReply {
    /// How the question ended, as named in the audit trail: the decision's wire name
    /// (`accept`, `decline`, …), `answered` for questions (whose text is never kept),
    /// `failed` or `withdrawn`.
    pub fn decision_name(&self) -> String {
        match self {
            ApprovalReply::Answered(answer) => match answer {
                ApprovalAnswer::Command(decision) => wire_name(decision),
                ApprovalAnswer::FileChange(decision) => wire_name(decision),
                ApprovalAnswer::McpElicitation(answer) => wire_name(&answer.action),
                ApprovalAnswer::UserInput(_)
                | ApprovalAnswer::FreeText(_)
                | ApprovalAnswer::Choices(_) => "answered".to_string(),
                ApprovalAnswer::DynamicToolCall(response) => if response.success {
                    "succeeded"
                } else {
                    "failed"
                }
                .to_string(),
                ApprovalAnswer::Permissions(response) => {
                    if response.permissions == Default::default() {
                        "declined".to_string()
                    } else {
                        format!("granted_for_{}", wire_name(&response.scope))
                    }
                }
            },
            ApprovalReply::Failed(_) => "failed".to_string(),
            ApprovalReply::Withdrawn => "withdrawn".to_string(),
        }
    }
}

/// A user's answer, of the kind the question asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum ApprovalAnswer {
    /// The decision on an [`ApprovalRequest::Command`].
    Command(CommandExecutionApprovalDecision),
    /// The decision on an [`ApprovalRequest::FileChange`].
    FileChange(FileChangeApprovalDecision),
    /// The answers to an [`ApprovalRequest::UserInput`].
    UserInput(ToolRequestUserInputResponse),
    /// The text answering an [`ApprovalRequest::FreeText`].
    FreeText(String),
    /// The answers to an [`ApprovalRequest::Choices`].
    Choices(QuestionAnswersResponse),
    /// The answer to an [`ApprovalRequest::McpElicitation`].
    McpElicitation(McpServerElicitationRequestResponse),
    /// The output of an [`ApprovalRequest::DynamicToolCall`], as the client sent it.
    DynamicToolCall(DynamicToolCallResponse),
    /// The grant answering an [`ApprovalRequest::Permissions`], as the client sent it (the
    /// engine bounds it by the request and the ceiling).
    Permissions(PermissionsRequestApprovalResponse),
}

impl ApprovalAnswer {
    /// The name of the kind of answer, for the message when it does not fit the question.
    pub fn kind(&self) -> &'static str {
        match self {
            ApprovalAnswer::Command(_) => "a command decision",
            ApprovalAnswer::FileChange(_) => "a file-change decision",
            ApprovalAnswer::UserInput(_) => "answers to questions",
            ApprovalAnswer::FreeText(_) => "free-form text",
            ApprovalAnswer::Choices(_) => "answers to choice questions",
            ApprovalAnswer::McpElicitation(_) => "an elicitation answer",
            ApprovalAnswer::DynamicToolCall(_) => "a tool output",
            ApprovalAnswer::Permissions(_) => "a permission grant",
        }
    }
}

/// Asks the user. Implementations must return [`ApprovalReply::Withdrawn`] promptly once
/// `cancel` fires, and must never block forever.
pub trait Approver: Send + Sync + 'static {
    /// Asks `request` and waits for the reply.
    fn request(
        &self,
        request: ApprovalRequest,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = ApprovalReply> + Send + '_>>;
}
