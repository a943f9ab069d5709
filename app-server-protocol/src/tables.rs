//! The method tables: every method of the protocol, declared once per direction.
//!
//! Each entry reads `Variant => "wire/name" [Stable|Experimental] { params: P, response: R }`
//! with its doc comment; the typed enums, method names, stability, dispatch and the schema
//! and binding exports all come from here. The two notification tables live in
//! `tables/notifications.rs` and the server request table in `tables/server_table.rs`;
//! both are re-exported here.

mod notifications;
mod server_table;
pub use notifications::*;
pub use server_table::*;

use crate::account::{
    AccountLoginCompletedNotification, AccountRateLimitsUpdatedNotification,
    AccountUpdatedNotification, AuthStatusChangeNotification, CancelLoginAccountParams,
    CancelLoginAccountResponse, GetAccountParams, GetAccountRateLimitsResponse, GetAccountResponse,
    LoginAccountParams, LoginAccountResponse, LoginChatGptCompleteNotification,
};
use crate::background_terminals::{
    ThreadBackgroundTerminalsListParams, ThreadBackgroundTerminalsListResponse,
};
use crate::codex_event::CodexEventNotification;
use crate::config_requests::{
    ConfigBatchWriteParams, ConfigRequirementsReadResponse, ConfigValueWriteParams,
    ConfigWriteResponse, ExperimentalFeatureEnablementSetParams,
    ExperimentalFeatureEnablementSetResponse, ExperimentalFeatureListParams,
    ExperimentalFeatureListResponse, ModelProviderCapabilitiesReadParams,
    ModelProviderCapabilitiesReadResponse, ModelProviderConfigWriteParams,
    ModelProviderConfigWriteResponse, ModelProviderDefaultSetParams, ModelProviderListParams,
    ModelProviderListResponse, PermissionProfileListParams, PermissionProfileListResponse,
};
use crate::conversation_summary::{GetConversationSummaryParams, GetConversationSummaryResponse};
use crate::dialogs::{
    AgentAskUserQuestionParams, AgentRequestUserInputParams, AgentRequestUserInputResponse,
    QuestionAnswersResponse, UserInputRequestParams,
};
use crate::dynamic_tools::{DynamicToolCallParams, DynamicToolCallResponse};
use crate::external_agent::{
    ExternalAgentConfigDetectParams, ExternalAgentConfigDetectResponse,
    ExternalAgentConfigImportNotification, ExternalAgentConfigImportParams,
    ExternalAgentConfigImportResponse,
};
use crate::fs::{
    FsChangedNotification, FsCopyParams, FsCreateDirectoryParams, FsGetMetadataParams,
    FsGetMetadataResponse, FsReadDirectoryParams, FsReadDirectoryResponse, FsReadFileParams,
    FsReadFileResponse, FsRemoveParams, FsUnwatchParams, FsWatchParams, FsWatchResponse,
    FsWriteFileParams,
};
use crate::fuzzy_sessions::{
    FuzzyFileSearchSessionStartParams, FuzzyFileSearchSessionStopParams,
    FuzzyFileSearchSessionUpdateParams, FuzzyFileSearchSessionUpdatedNotification,
};
use crate::history::{
    HistoryOpenParams, HistoryOpenResponse, HistorySearchParams, HistorySearchResponse,
};
use crate::hooks::{HookRunNotification, HooksListParams, HooksListResponse};
use crate::housekeeping::{
    FeedbackSaveParams, FeedbackSaveResponse, PluginListParams, PluginListResponse,
};
use crate::index::{
    IndexProgressNotification, IndexQueryParams, IndexQueryResponse, IndexRefreshParams,
    IndexRefreshResponse,
};
use crate::initialize::{InitializeParams, InitializeResponse};
use crate::item_progress::{
    FileChangePatchUpdatedNotification, McpToolCallProgressNotification, PlanDeltaNotification,
};
use crate::legacy::{
    ApplyPatchApprovalParams, ArchiveConversationParams, ExecCommandApprovalParams,
    ExecOneOffCommandParams, ExecOneOffCommandResponse, GetUserAgentResponse,
    GetUserSavedConfigResponse, InterruptConversationParams, InterruptConversationResponse,
    LegacyEmptyParams, LegacyEmptyResponse, ListConversationsParams, ListConversationsResponse,
    NewConversationParams, NewConversationResponse, ResumeConversationParams,
    ResumeConversationResponse, ReviewDecisionResponse, SendUserMessageParams,
    SendUserMessageResponse, SendUserTurnParams, SetDefaultModelParams, UserInfoResponse,
};
use crate::mcp_calls::{
    McpResourceReadParams, McpResourceReadResponse, McpServerToolCallParams,
    McpServerToolCallResponse,
};
use crate::mcp_servers::{
    ListMcpServerStatusParams, ListMcpServerStatusResponse, McpServerElicitationRequestParams,
    McpServerElicitationRequestResponse, McpServerStatusUpdatedNotification,
};
use crate::notifications::{
    CommandExecOutputDeltaNotification, ConfigWarningNotification, ContextCompactedNotification,
    DeprecationNoticeNotification, ErrorNotification, ItemCompletedNotification,
    ItemDeltaNotification, ItemStartedNotification, ReasoningSummaryPartAddedNotification,
    ReasoningSummaryTextDeltaNotification, ReasoningTextDeltaNotification,
    ServerRequestResolvedNotification, TerminalInteractionNotification, ThreadIdNotification,
    ThreadNameUpdatedNotification, ThreadStartedNotification, ThreadStatusChangedNotification,
    ThreadTokenUsageUpdatedNotification, TurnDiffUpdatedNotification, TurnNotification,
    TurnPlanUpdatedNotification, WarningNotification,
};
use crate::permissions::{PermissionsRequestApprovalParams, PermissionsRequestApprovalResponse};
use crate::policy::{CollaborationModeListParams, CollaborationModeListResponse};
use crate::process::{
    ProcessExitedNotification, ProcessKillParams, ProcessOutputDeltaNotification,
    ProcessResizePtyParams, ProcessSpawnParams, ProcessWriteStdinParams,
};
use crate::review::{ReviewStartParams, ReviewStartResponse};
use crate::server_requests::{
    CommandExecutionRequestApprovalParams, CommandExecutionRequestApprovalResponse,
    FileChangeRequestApprovalParams, FileChangeRequestApprovalResponse, ToolRequestUserInputParams,
    ToolRequestUserInputResponse,
};
use crate::shell_command::{ThreadShellCommandParams, ThreadShellCommandResponse};
use crate::skills::{
    SkillsChangedNotification, SkillsConfigWriteParams, SkillsConfigWriteResponse,
    SkillsExtraRootsSetParams, SkillsListParams, SkillsListResponse,
};
use crate::thread_attachment::{
    ThreadAttachmentAddParams, ThreadAttachmentAddResponse, ThreadAttachmentListParams,
    ThreadAttachmentListResponse, ThreadAttachmentRemoveParams,
    ThreadAttachmentUpdatedNotification,
};
use crate::thread_context::{
    ThreadCompactStartParams, ThreadRollbackParams, ThreadRollbackResponse,
};
use crate::thread_goal::{
    ThreadGoalClearParams, ThreadGoalClearResponse, ThreadGoalGetParams, ThreadGoalGetResponse,
    ThreadGoalSetParams, ThreadGoalSetResponse, ThreadGoalUpdatedNotification,
};
use crate::thread_items::{ThreadItemsListParams, ThreadItemsListResponse};
use crate::thread_lifecycle::{
    ThreadInjectItemsParams, ThreadMetadataUpdateParams, ThreadMetadataUpdateResponse,
    ThreadRevertParams, ThreadRevertResponse,
};
use crate::thread_queue::{
    ThreadQueueAddParams, ThreadQueueAddResponse, ThreadQueueChangedNotification,
    ThreadQueueListParams, ThreadQueueListResponse,
};
use crate::thread_read_state::{
    ThreadReadStateChangedNotification, ThreadReadStateUpdateParams, ThreadReadStateUpdateResponse,
};
use crate::thread_requests::{
    EmptyParams, EmptyResponse, NoParams, ThreadForkParams, ThreadIdParams, ThreadListParams,
    ThreadListResponse, ThreadLoadedListParams, ThreadLoadedListResponse, ThreadReadParams,
    ThreadReadResponse, ThreadResumeParams, ThreadResumeResponse, ThreadSetNameParams,
    ThreadStartParams, ThreadStartResponse, ThreadTurnsListParams, ThreadTurnsListResponse,
    ThreadUnarchiveResponse, ThreadUnsubscribeResponse,
};
use crate::thread_search::{
    MemoryStatusParams, MemoryStatusResponse, ThreadSearchParams, ThreadSearchResponse,
};
use crate::thread_section::{
    ThreadSectionChangedNotification, ThreadSectionCreateParams, ThreadSectionCreateResponse,
    ThreadSectionDeleteParams, ThreadSectionDeleteResponse, ThreadSectionListParams,
    ThreadSectionListResponse, ThreadSectionMoveParams, ThreadSectionMoveResponse,
    ThreadSectionUpdateParams, ThreadSectionUpdateResponse,
};
use crate::thread_settings::{
    ThreadSettingsUpdateParams, ThreadSettingsUpdateResponse, ThreadSettingsUpdatedNotification,
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
    /// A client request's method, without id or params.
    kind ClientMethod;
    /// One type per client request, naming its params and response types (`Request`).
    markers client_requests;

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
    /// Page through a thread's items across its turns (or one turn's).
    ThreadItemsList => "thread/items/list" [Stable] {
        params: ThreadItemsListParams,
        response: ThreadItemsListResponse,
    },
    /// Archive a thread: unload it and move its rollout to `archived_sessions/`.
    ThreadArchive => "thread/archive" [Stable] {
        params: ThreadIdParams,
        response: EmptyResponse,
    },
    /// Delete a thread for good: interrupt and unload it, remove its rollout (live or
    /// archived) and its rows in the thread and history indexes. Followed by
    /// `thread/deleted`.
    ThreadDelete => "thread/delete" [Stable] {
        params: ThreadIdParams,
        response: EmptyResponse,
    },
    /// Patch a thread's stored metadata (Git information, project, Daybreak choice).
    ThreadMetadataUpdate => "thread/metadata/update" [Stable] {
        params: ThreadMetadataUpdateParams,
        response: ThreadMetadataUpdateResponse,
    },
    /// Append raw Responses API items to a loaded thread's model-visible history.
    ThreadInjectItems => "thread/inject_items" [Stable] {
        params: ThreadInjectItemsParams,
        response: EmptyResponse,
    },
    /// Drop a turn and every later one from a thread's history (files are not restored).
    /// Followed by `thread/reverted`.
    ThreadRevert => "thread/revert" [Stable] {
        params: ThreadRevertParams,
        response: ThreadRevertResponse,
    },
    /// Set or change a loaded thread's goal. Followed by `thread/goal/updated`.
    ThreadGoalSet => "thread/goal/set" [Stable] {
        params: ThreadGoalSetParams,
        response: ThreadGoalSetResponse,
    },
    /// A loaded thread's goal, if it has one.
    ThreadGoalGet => "thread/goal/get" [Stable] {
        params: ThreadGoalGetParams,
        response: ThreadGoalGetResponse,
    },
    /// Clear a loaded thread's goal. Followed by `thread/goal/cleared` when there was one.
    ThreadGoalClear => "thread/goal/clear" [Stable] {
        params: ThreadGoalClearParams,
        response: ThreadGoalClearResponse,
    },
    /// Keep an attachment with a thread, or find the one already kept with the same type and
    /// identity. Followed by `thread/attachment/updated` when created.
    ThreadAttachmentAdd => "thread/attachment/add" [Stable] {
        params: ThreadAttachmentAddParams,
        response: ThreadAttachmentAddResponse,
    },
    /// A thread's attachments, oldest first, one page at a time.
    ThreadAttachmentList => "thread/attachment/list" [Stable] {
        params: ThreadAttachmentListParams,
        response: ThreadAttachmentListResponse,
    },
    /// Remove a thread's attachment by type and identity. Followed by
    /// `thread/attachment/updated` when there was one.
    ThreadAttachmentRemove => "thread/attachment/remove" [Stable] {
        params: ThreadAttachmentRemoveParams,
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
    /// Run a user's shell command in a loaded, idle thread, under the thread's sandbox: a turn
    /// of its own with one `commandExecution` item (`source: "userShell"`) and its output
    /// deltas. Answers at once with `{}`; the turn's notifications follow.
    ThreadShellCommand => "thread/shellCommand" [Stable] {
        params: ThreadShellCommandParams,
        response: ThreadShellCommandResponse,
    },
    /// Review code changes in a loaded, idle thread: uncommitted changes, the changes against a
    /// base branch, one commit, or custom instructions. Tandem collects the diff itself (under
    /// the thread's sandbox, capped) and sends it with its review rubric; the turn shows an
    /// `enteredReviewMode` item, then `exitedReviewMode` and an `agentMessage` carrying the
    /// findings. Answers at once with the turn; its notifications follow.
    ReviewStart => "review/start" [Stable] {
        params: ReviewStartParams,
        response: ReviewStartResponse,
    },
    /// List a loaded thread's `exec_command` processes still running after their tool call
    /// returned, oldest first.
    ThreadBackgroundTerminalsList => "thread/backgroundTerminals/list" [Experimental] {
        params: ThreadBackgroundTerminalsListParams,
        response: ThreadBackgroundTerminalsListResponse,
    },
    /// Queue an input behind the thread's running turn: it starts a turn of its own when the
    /// running one ends (not after an interrupt), in order. On an idle thread it starts at once.
    ThreadQueueAdd => "thread/queue/add" [Experimental] {
        params: ThreadQueueAddParams,
        response: ThreadQueueAddResponse,
    },
    /// List the inputs queued behind the thread's running turn, in the order they will start.
    ThreadQueueList => "thread/queue/list" [Experimental] {
        params: ThreadQueueListParams,
        response: ThreadQueueListResponse,
    },
    /// Mark a stored thread read or unread for its owner. Refused when `expectedRevision` is
    /// not the current revision; followed by `thread/readState/changed`.
    ThreadReadStateUpdate => "thread/readState/update" [Experimental] {
        params: ThreadReadStateUpdateParams,
        response: ThreadReadStateUpdateResponse,
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
    /// Experimental: the collaboration-mode presets (`Plan`, `Default`) as partial masks the
    /// client applies to its current mode before `turn/start.collaborationMode`.
    CollaborationModeList => "collaborationMode/list" [Experimental] {
        params: CollaborationModeListParams,
        response: CollaborationModeListResponse,
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
    /// Experimental: start a process outside the sandbox (only under a `danger-full-access`
    /// ceiling); answered once it runs, its output and exit follow as notifications.
    ProcessSpawn => "process/spawn" [Experimental] {
        params: ProcessSpawnParams,
        response: EmptyResponse,
    },
    /// Experimental: write to (or close) a running process's stdin.
    ProcessWriteStdin => "process/writeStdin" [Experimental] {
        params: ProcessWriteStdinParams,
        response: EmptyResponse,
    },
    /// Experimental: kill a running process's process group.
    ProcessKill => "process/kill" [Experimental] {
        params: ProcessKillParams,
        response: EmptyResponse,
    },
    /// Experimental: resize a running `tty` process's terminal.
    ProcessResizePty => "process/resizePty" [Experimental] {
        params: ProcessResizePtyParams,
        response: EmptyResponse,
    },
    /// Experimental: open a fuzzy-file-search session over some roots.
    FuzzyFileSearchSessionStart => "fuzzyFileSearch/sessionStart" [Experimental] {
        params: FuzzyFileSearchSessionStartParams,
        response: EmptyResponse,
    },
    /// Experimental: search a session's roots for a new query; the matches follow as
    /// `fuzzyFileSearch/sessionUpdated`.
    FuzzyFileSearchSessionUpdate => "fuzzyFileSearch/sessionUpdate" [Experimental] {
        params: FuzzyFileSearchSessionUpdateParams,
        response: EmptyResponse,
    },
    /// Experimental: end a fuzzy-file-search session.
    FuzzyFileSearchSessionStop => "fuzzyFileSearch/sessionStop" [Experimental] {
        params: FuzzyFileSearchSessionStopParams,
        response: EmptyResponse,
    },
    /// Read a file's bytes (base64) within the connection's file roots.
    FsReadFile => "fs/readFile" [Stable] {
        params: FsReadFileParams,
        response: FsReadFileResponse,
    },
    /// Create or replace a file within the connection's file roots.
    FsWriteFile => "fs/writeFile" [Stable] {
        params: FsWriteFileParams,
        response: EmptyResponse,
    },
    /// Create a directory (and, by default, its parents) within the file roots.
    FsCreateDirectory => "fs/createDirectory" [Stable] {
        params: FsCreateDirectoryParams,
        response: EmptyResponse,
    },
    /// Whether a path is a file, a directory or a symbolic link, with its times.
    FsGetMetadata => "fs/getMetadata" [Stable] {
        params: FsGetMetadataParams,
        response: FsGetMetadataResponse,
    },
    /// List a directory's direct children within the file roots.
    FsReadDirectory => "fs/readDirectory" [Stable] {
        params: FsReadDirectoryParams,
        response: FsReadDirectoryResponse,
    },
    /// Remove a file or a directory (by default with its contents) within the file roots.
    FsRemove => "fs/remove" [Stable] {
        params: FsRemoveParams,
        response: EmptyResponse,
    },
    /// Copy a file, or a directory with `recursive`, within the file roots.
    FsCopy => "fs/copy" [Stable] {
        params: FsCopyParams,
        response: EmptyResponse,
    },
    /// Watch a file or a directory's children; changes arrive as `fs/changed`.
    FsWatch => "fs/watch" [Stable] {
        params: FsWatchParams,
        response: FsWatchResponse,
    },
    /// Stop a watch started by `fs/watch`.
    FsUnwatch => "fs/unwatch" [Stable] {
        params: FsUnwatchParams,
        response: EmptyResponse,
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
    /// Legacy: the summary of one stored thread, by id or by rollout path.
    GetConversationSummary => "getConversationSummary" [Stable] {
        params: GetConversationSummaryParams,
        response: GetConversationSummaryResponse,
    },
    /// Legacy: start a conversation (a thread). Its events arrive as `codex/event`; its
    /// approvals as `applyPatchApproval` / `execCommandApproval`.
    NewConversation => "newConversation" [Stable] {
        params: NewConversationParams,
        response: NewConversationResponse,
    },
    /// Legacy: start a turn on a conversation with its current settings.
    SendUserMessage => "sendUserMessage" [Stable] {
        params: SendUserMessageParams,
        response: SendUserMessageResponse,
    },
    /// Legacy: start a turn on a conversation with explicit settings, which stay in effect.
    SendUserTurn => "sendUserTurn" [Stable] {
        params: SendUserTurnParams,
        response: SendUserMessageResponse,
    },
    /// Legacy: interrupt a conversation's running turn; answered once the turn has stopped.
    InterruptConversation => "interruptConversation" [Stable] {
        params: InterruptConversationParams,
        response: InterruptConversationResponse,
    },
    /// Legacy: list stored conversations (threads), newest first.
    ListConversations => "listConversations" [Stable] {
        params: ListConversationsParams,
        response: ListConversationsResponse,
    },
    /// Legacy: load a stored conversation (thread); its events then arrive as `codex/event`.
    ResumeConversation => "resumeConversation" [Stable] {
        params: ResumeConversationParams,
        response: ResumeConversationResponse,
    },
    /// Legacy: archive a conversation (as `thread/archive`).
    ArchiveConversation => "archiveConversation" [Stable] {
        params: ArchiveConversationParams,
        response: LegacyEmptyResponse,
    },
    /// Legacy: the settings saved in `config.toml`.
    GetUserSavedConfig => "getUserSavedConfig" [Stable] {
        params: LegacyEmptyParams,
        response: GetUserSavedConfigResponse,
    },
    /// Legacy: write the default model and reasoning effort to `config.toml`, keeping its
    /// comments and layout.
    SetDefaultModel => "setDefaultModel" [Stable] {
        params: SetDefaultModelParams,
        response: LegacyEmptyResponse,
    },
    /// Legacy: the user agent the server sends to model providers.
    GetUserAgent => "getUserAgent" [Stable] {
        params: LegacyEmptyParams,
        response: GetUserAgentResponse,
    },
    /// Legacy: the signed-in user; nobody, since Tandem has no ChatGPT login.
    UserInfo => "userInfo" [Stable] {
        params: LegacyEmptyParams,
        response: UserInfoResponse,
    },
    /// Legacy: run one command outside any conversation (as `command/exec`).
    ExecOneOffCommand => "execOneOffCommand" [Stable] {
        params: ExecOneOffCommandParams,
        response: ExecOneOffCommandResponse,
    },
    /// The account: an API key stored with `account/login/start` or set in the environment.
    AccountRead => "account/read" [Stable] {
        params: GetAccountParams,
        response: GetAccountResponse,
    },
    /// Log in. Only `{"type": "apiKey"}` is supported: the key is stored in
    /// `$TANDEM_HOME/auth.json` (mode 0600) and used by providers whose key variable is unset.
    /// Followed by `account/login/completed`, `account/updated` and `authStatusChange`.
    AccountLoginStart => "account/login/start" [Stable] {
        params: LoginAccountParams,
        response: LoginAccountResponse,
    },
    /// Cancel a login in progress. API-key logins complete at once, so the answer is `notFound`.
    AccountLoginCancel => "account/login/cancel" [Stable] {
        params: CancelLoginAccountParams,
        response: CancelLoginAccountResponse,
    },
    /// Log out: remove the stored API key. Followed by `account/updated` and `authStatusChange`.
    AccountLogout => "account/logout" [Stable] {
        params: NoParams,
        response: EmptyResponse,
    },
    /// The latest rate limits seen in the provider's `x-ratelimit-*` response headers.
    AccountRateLimitsRead => "account/rateLimits/read" [Stable] {
        params: NoParams,
        response: GetAccountRateLimitsResponse,
    },
    /// Experimental: the caller's threads whose conversations match a search term, from the
    /// history index, best match first (or by a time).
    ThreadSearch => "thread/search" [Experimental] {
        params: ThreadSearchParams,
        response: ThreadSearchResponse,
    },
    /// Experimental: the state of cross-thread memories, which Tandem does not keep (never
    /// ready).
    MemoryStatus => "memory/status" [Experimental] {
        params: MemoryStatusParams,
        response: MemoryStatusResponse,
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
    /// Search the project index (the MCP tool `query_project`): refreshes the index
    /// incrementally, sending `index/progress`, then answers with ranked snippets.
    IndexQuery => "index/query" [Experimental] {
        params: IndexQueryParams,
        response: IndexQueryResponse,
    },
    /// Warm or rebuild the project index (the MCP tool `repo_index_refresh`), sending
    /// `index/progress` as it goes.
    IndexRefresh => "index/refresh" [Experimental] {
        params: IndexRefreshParams,
        response: IndexRefreshResponse,
    },
    /// The configured MCP servers: their tools, auth and startup state.
    McpServerStatusList => "mcpServerStatus/list" [Stable] {
        params: ListMcpServerStatusParams,
        response: ListMcpServerStatusResponse,
    },
    /// Write one key of the user's `config.toml`, keeping its comments and order. Only the
    /// keys a client may set (`[clients] allow_client_config`) are written; threads started
    /// afterwards use the new file.
    ConfigValueWrite => "config/value/write" [Stable] {
        params: ConfigValueWriteParams,
        response: ConfigWriteResponse,
    },
    /// Write several keys of the user's `config.toml` at once: all of them or none.
    ConfigBatchWrite => "config/batchWrite" [Stable] {
        params: ConfigBatchWriteParams,
        response: ConfigWriteResponse,
    },
    /// Read `config.toml` again, so that threads started afterwards get the MCP servers it
    /// now names. Answers `{}`.
    ConfigMcpServerReload => "config/mcpServer/reload" [Stable] {
        params: NoParams,
        response: EmptyResponse,
    },
    /// The restrictions of the operator's policy (`[clients]`) a client can observe.
    ConfigRequirementsRead => "configRequirements/read" [Stable] {
        params: NoParams,
        response: ConfigRequirementsReadResponse,
    },
    /// The feature flags and their state; Tandem has none, so the list is empty.
    ExperimentalFeatureList => "experimentalFeature/list" [Stable] {
        params: ExperimentalFeatureListParams,
        response: ExperimentalFeatureListResponse,
    },
    /// Turn feature flags on or off for this process; Tandem has none, so nothing changes.
    ExperimentalFeatureEnablementSet => "experimentalFeature/enablement/set" [Stable] {
        params: ExperimentalFeatureEnablementSetParams,
        response: ExperimentalFeatureEnablementSetResponse,
    },
    /// The built-in permission profiles and whether this client may choose each.
    PermissionProfileList => "permissionProfile/list" [Stable] {
        params: PermissionProfileListParams,
        response: PermissionProfileListResponse,
    },
    /// The configured model providers and the default one.
    ModelProviderList => "modelProvider/list" [Stable] {
        params: ModelProviderListParams,
        response: ModelProviderListResponse,
    },
    /// Which hosted tools the default provider's threads are offered.
    ModelProviderCapabilitiesRead => "modelProvider/capabilities/read" [Stable] {
        params: ModelProviderCapabilitiesReadParams,
        response: ModelProviderCapabilitiesReadResponse,
    },
    /// Change a provider's settings in `config.toml`, or define a new one; subject to the
    /// same key policy as `config/value/write`.
    ModelProviderConfigWrite => "modelProvider/config/write" [Stable] {
        params: ModelProviderConfigWriteParams,
        response: ModelProviderConfigWriteResponse,
    },
    /// Choose the default provider (`model_provider` in `config.toml`) among the configured
    /// ones.
    ModelProviderDefaultSet => "modelProvider/default/set" [Stable] {
        params: ModelProviderDefaultSetParams,
        response: ConfigWriteResponse,
    },
    /// The skills (`SKILL.md` directories) each working directory sees, and which are enabled.
    SkillsList => "skills/list" [Stable] {
        params: SkillsListParams,
        response: SkillsListResponse,
    },
    /// Enable or disable a skill, by path or by name, in `config.toml`'s `[[skills.config]]`.
    SkillsConfigWrite => "skills/config/write" [Stable] {
        params: SkillsConfigWriteParams,
        response: SkillsConfigWriteResponse,
    },
    /// Set the connection's extra skill roots, within its file roots (then `skills/changed`).
    SkillsExtraRootsSet => "skills/extraRoots/set" [Stable] {
        params: SkillsExtraRootsSetParams,
        response: EmptyResponse,
    },
    /// The hooks of the operator's `config.toml`, with their trust keys and hashes.
    HooksList => "hooks/list" [Stable] {
        params: HooksListParams,
        response: HooksListResponse,
    },
    /// Call a tool of a loaded thread's MCP server (`clients.allow_mcp_server_calls`).
    McpServerToolCall => "mcpServer/tool/call" [Stable] {
        params: McpServerToolCallParams,
        response: McpServerToolCallResponse,
    },
    /// Read a resource of a loaded thread's MCP server (`clients.allow_mcp_server_calls`).
    McpResourceRead => "mcpServer/resource/read" [Stable] {
        params: McpResourceReadParams,
        response: McpResourceReadResponse,
    },
    /// Write a local feedback bundle (ZIP: a thread's rollout, logs; secrets masked).
    FeedbackSave => "feedback/save" [Stable] {
        params: FeedbackSaveParams,
        response: FeedbackSaveResponse,
    },
    /// The local plugins: none, since Tandem installs no plugins.
    PluginList => "plugin/list" [Stable] {
        params: PluginListParams,
        response: PluginListResponse,
    },
    /// What of another agent's setup (`CLAUDE.md`, skills, MCP servers, hooks) could be imported.
    ExternalAgentConfigDetect => "externalAgentConfig/detect" [Stable] {
        params: ExternalAgentConfigDetectParams,
        response: ExternalAgentConfigDetectResponse,
    },
    /// Import detected items; MCP servers and hooks only locally, and disabled.
    ExternalAgentConfigImport => "externalAgentConfig/import" [Stable] {
        params: ExternalAgentConfigImportParams,
        response: ExternalAgentConfigImportResponse,
    },
    /// Create a section of the caller's threads.
    ThreadSectionCreate => "threadSection/create" [Stable] {
        params: ThreadSectionCreateParams,
        response: ThreadSectionCreateResponse,
    },
    /// The caller's sections, the built-in "Pinned" first.
    ThreadSectionList => "threadSection/list" [Stable] {
        params: ThreadSectionListParams,
        response: ThreadSectionListResponse,
    },
    /// Rename a section or change its appearance.
    ThreadSectionUpdate => "threadSection/update" [Stable] {
        params: ThreadSectionUpdateParams,
        response: ThreadSectionUpdateResponse,
    },
    /// Delete a section; its threads then belong to none.
    ThreadSectionDelete => "threadSection/delete" [Stable] {
        params: ThreadSectionDeleteParams,
        response: ThreadSectionDeleteResponse,
    },
    /// Put a thread into a section, move it within one, or take it out. Followed by
    /// `thread/section/changed`.
    ThreadSectionMove => "thread/section/move" [Stable] {
        params: ThreadSectionMoveParams,
        response: ThreadSectionMoveResponse,
    },
    /// Change a loaded thread's settings for its next turns, without starting one. Followed
    /// by `thread/settings/updated` when a setting changed.
    ThreadSettingsUpdate => "thread/settings/update" [Experimental] {
        params: ThreadSettingsUpdateParams,
        response: ThreadSettingsUpdateResponse,
    },
}
