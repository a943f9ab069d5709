//! The method tables: every method of the protocol, declared once per direction.
//!
//! Each entry reads `Variant => "wire/name" [Stable|Experimental] { params: P, response: R }`
//! with its doc comment; the typed enums, method names, stability, dispatch and the schema
//! and binding exports all come from here.

use crate::history::{
    HistoryOpenParams, HistoryOpenResponse, HistorySearchParams, HistorySearchResponse,
};
use crate::initialize::{InitializeParams, InitializeResponse};
use crate::notifications::{
    CommandExecOutputDeltaNotification, ConfigWarningNotification, DeprecationNoticeNotification,
    ErrorNotification, ItemCompletedNotification, ItemDeltaNotification, ItemStartedNotification,
    ReasoningSummaryPartAddedNotification, ReasoningSummaryTextDeltaNotification,
    ReasoningTextDeltaNotification, ServerRequestResolvedNotification, ThreadIdNotification,
    ThreadNameUpdatedNotification, ThreadStartedNotification, ThreadStatusChangedNotification,
    ThreadTokenUsageUpdatedNotification, TurnDiffUpdatedNotification, TurnNotification,
    TurnPlanUpdatedNotification, WarningNotification,
};
use crate::server_requests::{
    CommandExecutionRequestApprovalParams, CommandExecutionRequestApprovalResponse,
    FileChangeRequestApprovalParams, FileChangeRequestApprovalResponse, ToolRequestUserInputParams,
    ToolRequestUserInputResponse,
};
use crate::thread_context::{
    ThreadCompactStartParams, ThreadRollbackParams, ThreadRollbackResponse,
};
use crate::thread_requests::{
    EmptyParams, EmptyResponse, ThreadForkParams, ThreadIdParams, ThreadListParams,
    ThreadListResponse, ThreadLoadedListParams, ThreadLoadedListResponse, ThreadReadParams,
    ThreadReadResponse, ThreadResumeParams, ThreadResumeResponse, ThreadSetNameParams,
    ThreadStartParams, ThreadStartResponse, ThreadTurnsListParams, ThreadTurnsListResponse,
    ThreadUnarchiveResponse, ThreadUnsubscribeResponse,
};
use crate::turn_requests::{
    TurnInterruptParams, TurnStartParams, TurnStartResponse, TurnSteerParams, TurnSteerResponse,
};
use crate::utility::{
    CommandExecParams, CommandExecResizeParams, CommandExecResponse, CommandExecTerminateParams,
    CommandExecWriteParams, ConfigReadParams, ConfigReadResponse, FuzzyFileSearchParams,
    FuzzyFileSearchResponse, GetAuthStatusParams, GetAuthStatusResponse, GitDiffToRemoteParams,
    GitDiffToRemoteResponse, ModelListParams, ModelListResponse,
};

request_table! {
    /// A request from the client to the server.
    enum ClientRequest;
    /// A client request without its id.
    payload ClientRequestPayload;

    /// Open the connection: declare the client and its capabilities. Must come first, once.
    Initialize => "initialize" [Stable] {
        params: InitializeParams,
        response: InitializeResponse,
    },
    /// Create a thread. Followed by `thread/started`.
    ThreadStart => "thread/start" [Stable] {
        params: ThreadStartParams,
        response: ThreadStartResponse,
    },
    /// Load a stored thread, apply overrides and subscribe to its events.
    ThreadResume => "thread/resume" [Stable] {
        params: ThreadResumeParams,
        response: ThreadResumeResponse,
    },
    /// Copy a stored thread's history into a new thread. Followed by `thread/started`.
    ThreadFork => "thread/fork" [Stable] {
        params: ThreadForkParams,
        response: ThreadStartResponse,
    },
    /// List stored threads with filters, sorting and cursor pagination.
    ThreadList => "thread/list" [Stable] {
        params: ThreadListParams,
        response: ThreadListResponse,
    },
    /// Read a thread's metadata (and optionally its turns) without loading it.
    ThreadRead => "thread/read" [Stable] {
        params: ThreadReadParams,
        response: ThreadReadResponse,
    },
    /// Page through a thread's turns.
    ThreadTurnsList => "thread/turns/list" [Stable] {
        params: ThreadTurnsListParams,
        response: ThreadTurnsListResponse,
    },
    /// Archive a thread: unload it and move its rollout to `archived_sessions/`.
    ThreadArchive => "thread/archive" [Stable] {
        params: ThreadIdParams,
        response: EmptyResponse,
    },
    /// Restore an archived thread.
    ThreadUnarchive => "thread/unarchive" [Stable] {
        params: ThreadIdParams,
        response: ThreadUnarchiveResponse,
    },
    /// Name a thread. Followed by `thread/name/updated`.
    ThreadSetName => "thread/name/set" [Stable] {
        params: ThreadSetNameParams,
        response: EmptyResponse,
    },
    /// List the ids of the threads loaded in this server.
    ThreadLoadedList => "thread/loaded/list" [Stable] {
        params: ThreadLoadedListParams,
        response: ThreadLoadedListResponse,
    },
    /// Stop receiving a thread's events on this connection.
    ThreadUnsubscribe => "thread/unsubscribe" [Stable] {
        params: ThreadIdParams,
        response: ThreadUnsubscribeResponse,
    },
    /// Drop the last `numTurns` turns from a loaded, idle thread's history (persisted as a
    /// rollback record). Answers with the thread and its remaining turns; files changed by the
    /// dropped turns are not reverted.
    ThreadRollback => "thread/rollback" [Stable] {
        params: ThreadRollbackParams,
        response: ThreadRollbackResponse,
    },
    /// Compact a loaded, idle thread's history now: a turn that asks the model for a summary
    /// and continues from it, shown as a `contextCompaction` item. Answers at once with `{}`;
    /// the turn's notifications follow.
    ThreadCompactStart => "thread/compact/start" [Stable] {
        params: ThreadCompactStartParams,
        response: EmptyResponse,
    },
    /// Start a turn. On a busy thread the input joins the running turn, which is returned.
    TurnStart => "turn/start" [Stable] {
        params: TurnStartParams,
        response: TurnStartResponse,
    },
    /// Interrupt the running turn. Followed by `turn/completed` with status `interrupted`.
    TurnInterrupt => "turn/interrupt" [Stable] {
        params: TurnInterruptParams,
        response: EmptyResponse,
    },
    /// Add input to the running turn.
    TurnSteer => "turn/steer" [Stable] {
        params: TurnSteerParams,
        response: TurnSteerResponse,
    },
    /// List the models of the configured provider.
    ModelList => "model/list" [Stable] {
        params: ModelListParams,
        response: ModelListResponse,
    },
    /// Read the effective configuration.
    ConfigRead => "config/read" [Stable] {
        params: ConfigReadParams,
        response: ConfigReadResponse,
    },
    /// Run a standalone command (no thread, no turn) and return its output.
    CommandExec => "command/exec" [Stable] {
        params: CommandExecParams,
        response: CommandExecResponse,
    },
    /// Write to the stdin of a running `command/exec`.
    CommandExecWrite => "command/exec/write" [Stable] {
        params: CommandExecWriteParams,
        response: EmptyResponse,
    },
    /// Resize the terminal of a running `command/exec` with `tty`.
    CommandExecResize => "command/exec/resize" [Stable] {
        params: CommandExecResizeParams,
        response: EmptyResponse,
    },
    /// Kill a running `command/exec` and its process group.
    CommandExecTerminate => "command/exec/terminate" [Stable] {
        params: CommandExecTerminateParams,
        response: EmptyResponse,
    },
    /// Fuzzy-search file names under some roots (gitignore-aware).
    FuzzyFileSearch => "fuzzyFileSearch" [Stable] {
        params: FuzzyFileSearchParams,
        response: FuzzyFileSearchResponse,
    },
    /// Diff the working tree against its remote-tracking commit.
    GitDiffToRemote => "gitDiffToRemote" [Stable] {
        params: GitDiffToRemoteParams,
        response: GitDiffToRemoteResponse,
    },
    /// Legacy: the login state. Tandem has no OpenAI login, so nobody is logged in and none
    /// is required.
    GetAuthStatus => "getAuthStatus" [Stable] {
        params: GetAuthStatusParams,
        response: GetAuthStatusResponse,
    },
    /// BM25 search over past conversations (the MCP tool `search`).
    HistorySearch => "history/search" [Experimental] {
        params: HistorySearchParams,
        response: HistorySearchResponse,
    },
    /// The events around one past event, in conversation order (the MCP tool `open`).
    HistoryOpen => "history/open" [Experimental] {
        params: HistoryOpenParams,
        response: HistoryOpenResponse,
    },
}

request_table! {
    /// A request from the server to the client; the turn waits for the answer.
    enum ServerRequest;
    /// A server request without its id; the outgoing sender assigns ids.
    payload ServerRequestPayload;

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
}

notification_table! {
    /// A notification from the server to the client.
    enum ServerNotification;

    /// A thread was created by `thread/start` or `thread/fork`.
    ThreadStarted => "thread/started" [Stable] { params: ThreadStartedNotification },
    /// A thread's status changed.
    ThreadStatusChanged => "thread/status/changed" [Stable] { params: ThreadStatusChangedNotification },
    /// A thread was archived.
    ThreadArchived => "thread/archived" [Stable] { params: ThreadIdNotification },
    /// A thread was unarchived.
    ThreadUnarchived => "thread/unarchived" [Stable] { params: ThreadIdNotification },
    /// A thread was renamed.
    ThreadNameUpdated => "thread/name/updated" [Stable] { params: ThreadNameUpdatedNotification },
    /// A thread was unloaded from this server.
    ThreadClosed => "thread/closed" [Stable] { params: ThreadIdNotification },
    /// A resumed thread has no active goal.
    ThreadGoalCleared => "thread/goal/cleared" [Stable] { params: ThreadIdNotification },
    /// Token usage after a model response.
    ThreadTokenUsageUpdated => "thread/tokenUsage/updated" [Stable] { params: ThreadTokenUsageUpdatedNotification },
    /// A turn started streaming.
    TurnStarted => "turn/started" [Stable] { params: TurnNotification },
    /// A turn ended: completed, interrupted or failed. Closes every open item.
    TurnCompleted => "turn/completed" [Stable] { params: TurnNotification },
    /// The turn's aggregated diff changed.
    TurnDiffUpdated => "turn/diff/updated" [Stable] { params: TurnDiffUpdatedNotification },
    /// The agent's plan changed.
    TurnPlanUpdated => "turn/plan/updated" [Stable] { params: TurnPlanUpdatedNotification },
    /// An item started.
    ItemStarted => "item/started" [Stable] { params: ItemStartedNotification },
    /// An item completed; its final state.
    ItemCompleted => "item/completed" [Stable] { params: ItemCompletedNotification },
    /// Text appended to an agent message.
    AgentMessageDelta => "item/agentMessage/delta" [Stable] { params: ItemDeltaNotification },
    /// Text appended to a reasoning summary part.
    ReasoningSummaryTextDelta => "item/reasoning/summaryTextDelta" [Stable] { params: ReasoningSummaryTextDeltaNotification },
    /// A reasoning summary part began.
    ReasoningSummaryPartAdded => "item/reasoning/summaryPartAdded" [Stable] { params: ReasoningSummaryPartAddedNotification },
    /// Raw reasoning text appended.
    ReasoningTextDelta => "item/reasoning/textDelta" [Stable] { params: ReasoningTextDeltaNotification },
    /// Output of a running command.
    CommandExecutionOutputDelta => "item/commandExecution/outputDelta" [Stable] { params: ItemDeltaNotification },
    /// Textual output of a patch application (legacy; not emitted by Tandem).
    FileChangeOutputDelta => "item/fileChange/outputDelta" [Stable] { params: ItemDeltaNotification },
    /// A server request was answered or cleaned up.
    ServerRequestResolved => "serverRequest/resolved" [Stable] { params: ServerRequestResolvedNotification },
    /// A turn error (before the failing `turn/completed`, or while retrying).
    Error => "error" [Stable] { params: ErrorNotification },
    /// A warning.
    Warning => "warning" [Stable] { params: WarningNotification },
    /// A configuration problem that did not stop the server.
    ConfigWarning => "configWarning" [Stable] { params: ConfigWarningNotification },
    /// The client used a deprecated feature.
    DeprecationNotice => "deprecationNotice" [Stable] { params: DeprecationNoticeNotification },
    /// Output of a streaming `command/exec`.
    CommandExecOutputDelta => "command/exec/outputDelta" [Stable] { params: CommandExecOutputDeltaNotification },
}

notification_table! {
    /// A notification from the client to the server.
    enum ClientNotification;

    /// The client processed the `initialize` response (accepted, not enforced).
    Initialized => "initialized" [Stable] { params: EmptyParams },
}
