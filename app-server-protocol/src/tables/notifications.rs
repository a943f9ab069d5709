//! The notification tables, server to client and client to server (see the parent module).

use super::*;

notification_table! {
    /// A notification from the server to the client.
    enum ServerNotification;
    /// One type per server notification, naming its params type (`Notification`).
    markers server_notifications;

    /// A thread was created by `thread/start` or `thread/fork`.
    ThreadStarted => "thread/started" [Stable] { params: ThreadStartedNotification },
    /// A thread's status changed.
    ThreadStatusChanged => "thread/status/changed" [Stable] { params: ThreadStatusChangedNotification },
    /// A thread's queue of inputs changed (`thread/queue/add`, or an input left it to start).
    ThreadQueueChanged => "thread/queue/changed" [Experimental] { params: ThreadQueueChangedNotification },
    /// A thread was archived.
    ThreadArchived => "thread/archived" [Stable] { params: ThreadIdNotification },
    /// A thread was deleted (`thread/delete`).
    ThreadDeleted => "thread/deleted" [Stable] { params: ThreadIdNotification },
    /// A thread's history was cut back by `thread/revert`.
    ThreadReverted => "thread/reverted" [Stable] { params: ThreadIdNotification },
    /// An attachment of a thread was added or removed.
    ThreadAttachmentUpdated => "thread/attachment/updated" [Stable] { params: ThreadAttachmentUpdatedNotification },
    /// A thread was moved into, within or out of a section (`thread/section/move`).
    ThreadSectionChanged => "thread/section/changed" [Stable] { params: ThreadSectionChangedNotification },
    /// A stored thread's read state changed: marked read or unread, or a turn ended with a
    /// result that needs its owner's attention.
    ThreadReadStateChanged => "thread/readState/changed" [Experimental] { params: ThreadReadStateChangedNotification },
    /// A thread's settings for its next turns changed (`thread/settings/update`).
    ThreadSettingsUpdated => "thread/settings/updated" [Experimental] { params: ThreadSettingsUpdatedNotification },
    /// A thread's history was compacted; follows the `contextCompaction` item's
    /// `item/completed` (kept for older clients).
    ThreadCompacted => "thread/compacted" [Stable] { params: ContextCompactedNotification },
    /// A thread was unarchived.
    ThreadUnarchived => "thread/unarchived" [Stable] { params: ThreadIdNotification },
    /// A thread was renamed.
    ThreadNameUpdated => "thread/name/updated" [Stable] { params: ThreadNameUpdatedNotification },
    /// A thread was unloaded from this server.
    ThreadClosed => "thread/closed" [Stable] { params: ThreadIdNotification },
    /// A thread's goal was cleared (`thread/goal/clear`), or a resumed thread has none.
    ThreadGoalCleared => "thread/goal/cleared" [Stable] { params: ThreadIdNotification },
    /// A thread's goal was set or changed (`thread/goal/set`), or a resumed thread has one.
    ThreadGoalUpdated => "thread/goal/updated" [Stable] { params: ThreadGoalUpdatedNotification },
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
    /// The model wrote to (or polled) a command it left running (`write_stdin`).
    CommandExecutionTerminalInteraction => "item/commandExecution/terminalInteraction" [Stable] { params: TerminalInteractionNotification },
    /// Text appended to the proposed plan (`plan` item) of a plan-mode turn.
    PlanDelta => "item/plan/delta" [Stable] { params: PlanDeltaNotification },
    /// The changes of a `fileChange` item as known so far.
    FileChangePatchUpdated => "item/fileChange/patchUpdated" [Stable] { params: FileChangePatchUpdatedNotification },
    /// An MCP server reported progress on the tool call of an `mcpToolCall` item.
    McpToolCallProgress => "item/mcpToolCall/progress" [Stable] { params: McpToolCallProgressNotification },
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
    /// Output of a streaming `process/spawn`.
    ProcessOutputDelta => "process/outputDelta" [Stable] { params: ProcessOutputDeltaNotification },
    /// A `process/spawn` process ended.
    ProcessExited => "process/exited" [Stable] { params: ProcessExitedNotification },
    /// The matches of a fuzzy-file-search session's latest query.
    FuzzyFileSearchSessionUpdated => "fuzzyFileSearch/sessionUpdated" [Stable] { params: FuzzyFileSearchSessionUpdatedNotification },
    /// Paths under an `fs/watch` changed.
    FsChanged => "fs/changed" [Stable] { params: FsChangedNotification },
    /// Progress of the refresh run by this connection's `index/refresh` or `index/query`.
    IndexProgress => "index/progress" [Experimental] { params: IndexProgressNotification },
    /// Legacy: one Codex event (`EventMsg`) of a conversation, for threads opened with
    /// `newConversation` / `resumeConversation` (and, over MCP, of a `codex` tool call).
    CodexEvent => "codex/event" [Stable] { params: CodexEventNotification },
    /// A login finished (after `account/login/start`).
    AccountLoginCompleted => "account/login/completed" [Stable] { params: AccountLoginCompletedNotification },
    /// The login changed (after a login or a logout).
    AccountUpdated => "account/updated" [Stable] { params: AccountUpdatedNotification },
    /// A model response carried new rate limits (`x-ratelimit-*` headers).
    AccountRateLimitsUpdated => "account/rateLimits/updated" [Stable] { params: AccountRateLimitsUpdatedNotification },
    /// Legacy: a ChatGPT login finished. Never sent: Tandem has no ChatGPT login.
    LoginChatGptComplete => "loginChatGptComplete" [Stable] { params: LoginChatGptCompleteNotification },
    /// Legacy: the auth mode changed; sent with `account/updated`.
    AuthStatusChange => "authStatusChange" [Stable] { params: AuthStatusChangeNotification },
    /// An MCP server of a thread is starting, ready, failed or cancelled.
    McpServerStatusUpdated => "mcpServer/startupStatus/updated" [Stable] { params: McpServerStatusUpdatedNotification },
    /// The skills a client would list changed; list them again.
    SkillsChanged => "skills/changed" [Stable] { params: SkillsChangedNotification },
    /// A trusted hook started running in a turn.
    HookStarted => "hook/started" [Stable] { params: HookRunNotification },
    /// A hook run ended: completed, failed or blocked, with what it said.
    HookCompleted => "hook/completed" [Stable] { params: HookRunNotification },
    /// One item of an `externalAgentConfig/import` was imported (or failed).
    ExternalAgentConfigImportProgress => "externalAgentConfig/import/progress" [Stable] { params: ExternalAgentConfigImportNotification },
    /// An `externalAgentConfig/import` ended, with every item's outcome.
    ExternalAgentConfigImportCompleted => "externalAgentConfig/import/completed" [Stable] { params: ExternalAgentConfigImportNotification },
}

notification_table! {
    /// A notification from the client to the server.
    enum ClientNotification;
    /// One type per client notification, naming its params type (`Notification`).
    markers client_notifications;

    /// The client processed the `initialize` response (accepted, not enforced).
    Initialized => "initialized" [Stable] { params: EmptyParams },
}
