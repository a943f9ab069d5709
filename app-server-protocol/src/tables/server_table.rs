//! The server request table, server to client (see the parent module).

use super::*;

request_table! {
    /// A request from the server to the client; the turn waits for the answer.
    enum ServerRequest;
    /// A server request without its id; the outgoing sender assigns ids.
    payload ServerRequestPayload;
    /// A server request's method, without id or params.
    kind ServerMethod;
    /// One type per server request, naming its params and response types (`Request`).
    markers server_requests;

    /// Ask whether a command may run.
    CommandExecutionRequestApproval => "item/commandExecution/requestApproval" [Stable] {
        params: CommandExecutionRequestApprovalParams,
        response: CommandExecutionRequestApprovalResponse,
    },
    /// Ask whether file changes may be written.
    FileChangeRequestApproval => "item/fileChange/requestApproval" [Stable] {
        params: FileChangeRequestApprovalParams,
        response: FileChangeRequestApprovalResponse,
    },
    /// Ask the user one to three questions.
    ToolRequestUserInput => "item/tool/requestUserInput" [Experimental] {
        params: ToolRequestUserInputParams,
        response: ToolRequestUserInputResponse,
    },
    /// Legacy: ask whether a conversation's patch may be applied (instead of
    /// `item/fileChange/requestApproval`).
    ApplyPatchApproval => "applyPatchApproval" [Stable] {
        params: ApplyPatchApprovalParams,
        response: ReviewDecisionResponse,
    },
    /// Legacy: ask whether a conversation's command may run (instead of
    /// `item/commandExecution/requestApproval`).
    ExecCommandApproval => "execCommandApproval" [Stable] {
        params: ExecCommandApprovalParams,
        response: ReviewDecisionResponse,
    },
    /// Ask the user one to three questions (the `{text, options, isOther}` shape of
    /// `item/tool/requestUserInput`, sent instead of it when the connection chose it at
    /// `initialize`).
    UserInputRequest => "tool/requestUserInput" [Experimental] {
        params: UserInputRequestParams,
        response: QuestionAnswersResponse,
    },
    /// Ask the user for free-form text (model tool `ask_user`).
    AgentRequestUserInput => "agent/requestUserInput" [Experimental] {
        params: AgentRequestUserInputParams,
        response: AgentRequestUserInputResponse,
    },
    /// Ask the user single- or multi-choice questions (model tool `ask_user_question`).
    AgentAskUserQuestion => "agent/askUserQuestion" [Experimental] {
        params: AgentAskUserQuestionParams,
        response: QuestionAnswersResponse,
    },
    /// An MCP server asks the user something during a tool call (or Tandem asks whether an
    /// MCP tool may run); the answer goes back to the server.
    McpServerElicitationRequest => "mcpServer/elicitation/request" [Stable] {
        params: McpServerElicitationRequestParams,
        response: McpServerElicitationRequestResponse,
    },
    /// The model called a tool the client declared at `thread/start` (`dynamicTools`): the
    /// client runs it and answers with its output.
    DynamicToolCall => "item/tool/call" [Stable] {
        params: DynamicToolCallParams,
        response: DynamicToolCallResponse,
    },
    /// The model asks for more than the thread's sandbox gives (`request_permissions`): the
    /// client grants a subset, for the turn or the rest of the thread, within the operator's
    /// ceiling.
    PermissionsRequestApproval => "item/permissions/requestApproval" [Stable] {
        params: PermissionsRequestApprovalParams,
        response: PermissionsRequestApprovalResponse,
    },
}
