// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ArchiveConversationParams } from "./ArchiveConversationParams";
import type { CancelLoginAccountParams } from "./CancelLoginAccountParams";
import type { CancelLoginAccountResponse } from "./CancelLoginAccountResponse";
import type { CollaborationModeListParams } from "./CollaborationModeListParams";
import type { CollaborationModeListResponse } from "./CollaborationModeListResponse";
import type { CommandExecParams } from "./CommandExecParams";
import type { CommandExecResizeParams } from "./CommandExecResizeParams";
import type { CommandExecResponse } from "./CommandExecResponse";
import type { CommandExecTerminateParams } from "./CommandExecTerminateParams";
import type { CommandExecWriteParams } from "./CommandExecWriteParams";
import type { ConfigBatchWriteParams } from "./ConfigBatchWriteParams";
import type { ConfigReadParams } from "./ConfigReadParams";
import type { ConfigReadResponse } from "./ConfigReadResponse";
import type { ConfigRequirementsReadResponse } from "./ConfigRequirementsReadResponse";
import type { ConfigValueWriteParams } from "./ConfigValueWriteParams";
import type { ConfigWriteResponse } from "./ConfigWriteResponse";
import type { EmptyResponse } from "./EmptyResponse";
import type { ExecOneOffCommandParams } from "./ExecOneOffCommandParams";
import type { ExecOneOffCommandResponse } from "./ExecOneOffCommandResponse";
import type { ExperimentalFeatureEnablementSetParams } from "./ExperimentalFeatureEnablementSetParams";
import type { ExperimentalFeatureEnablementSetResponse } from "./ExperimentalFeatureEnablementSetResponse";
import type { ExperimentalFeatureListParams } from "./ExperimentalFeatureListParams";
import type { ExperimentalFeatureListResponse } from "./ExperimentalFeatureListResponse";
import type { ExternalAgentConfigDetectParams } from "./ExternalAgentConfigDetectParams";
import type { ExternalAgentConfigDetectResponse } from "./ExternalAgentConfigDetectResponse";
import type { ExternalAgentConfigImportParams } from "./ExternalAgentConfigImportParams";
import type { ExternalAgentConfigImportResponse } from "./ExternalAgentConfigImportResponse";
import type { FeedbackSaveParams } from "./FeedbackSaveParams";
import type { FeedbackSaveResponse } from "./FeedbackSaveResponse";
import type { FsCopyParams } from "./FsCopyParams";
import type { FsCreateDirectoryParams } from "./FsCreateDirectoryParams";
import type { FsGetMetadataParams } from "./FsGetMetadataParams";
import type { FsGetMetadataResponse } from "./FsGetMetadataResponse";
import type { FsReadDirectoryParams } from "./FsReadDirectoryParams";
import type { FsReadDirectoryResponse } from "./FsReadDirectoryResponse";
import type { FsReadFileParams } from "./FsReadFileParams";
import type { FsReadFileResponse } from "./FsReadFileResponse";
import type { FsRemoveParams } from "./FsRemoveParams";
import type { FsUnwatchParams } from "./FsUnwatchParams";
import type { FsWatchParams } from "./FsWatchParams";
import type { FsWatchResponse } from "./FsWatchResponse";
import type { FsWriteFileParams } from "./FsWriteFileParams";
import type { FuzzyFileSearchParams } from "./FuzzyFileSearchParams";
import type { FuzzyFileSearchResponse } from "./FuzzyFileSearchResponse";
import type { FuzzyFileSearchSessionStartParams } from "./FuzzyFileSearchSessionStartParams";
import type { FuzzyFileSearchSessionStopParams } from "./FuzzyFileSearchSessionStopParams";
import type { FuzzyFileSearchSessionUpdateParams } from "./FuzzyFileSearchSessionUpdateParams";
import type { GetAccountParams } from "./GetAccountParams";
import type { GetAccountRateLimitsResponse } from "./GetAccountRateLimitsResponse";
import type { GetAccountResponse } from "./GetAccountResponse";
import type { GetAuthStatusParams } from "./GetAuthStatusParams";
import type { GetAuthStatusResponse } from "./GetAuthStatusResponse";
import type { GetConversationSummaryParams } from "./GetConversationSummaryParams";
import type { GetConversationSummaryResponse } from "./GetConversationSummaryResponse";
import type { GetUserAgentResponse } from "./GetUserAgentResponse";
import type { GetUserSavedConfigResponse } from "./GetUserSavedConfigResponse";
import type { GitDiffToRemoteParams } from "./GitDiffToRemoteParams";
import type { GitDiffToRemoteResponse } from "./GitDiffToRemoteResponse";
import type { HistoryOpenParams } from "./HistoryOpenParams";
import type { HistoryOpenResponse } from "./HistoryOpenResponse";
import type { HistorySearchParams } from "./HistorySearchParams";
import type { HistorySearchResponse } from "./HistorySearchResponse";
import type { HooksListParams } from "./HooksListParams";
import type { HooksListResponse } from "./HooksListResponse";
import type { IndexQueryParams } from "./IndexQueryParams";
import type { IndexQueryResponse } from "./IndexQueryResponse";
import type { IndexRefreshParams } from "./IndexRefreshParams";
import type { IndexRefreshResponse } from "./IndexRefreshResponse";
import type { InitializeParams } from "./InitializeParams";
import type { InitializeResponse } from "./InitializeResponse";
import type { InterruptConversationParams } from "./InterruptConversationParams";
import type { InterruptConversationResponse } from "./InterruptConversationResponse";
import type { LegacyEmptyParams } from "./LegacyEmptyParams";
import type { LegacyEmptyResponse } from "./LegacyEmptyResponse";
import type { ListConversationsParams } from "./ListConversationsParams";
import type { ListConversationsResponse } from "./ListConversationsResponse";
import type { ListMcpServerStatusParams } from "./ListMcpServerStatusParams";
import type { ListMcpServerStatusResponse } from "./ListMcpServerStatusResponse";
import type { LoginAccountParams } from "./LoginAccountParams";
import type { LoginAccountResponse } from "./LoginAccountResponse";
import type { McpResourceReadParams } from "./McpResourceReadParams";
import type { McpResourceReadResponse } from "./McpResourceReadResponse";
import type { McpServerToolCallParams } from "./McpServerToolCallParams";
import type { McpServerToolCallResponse } from "./McpServerToolCallResponse";
import type { MemoryStatusParams } from "./MemoryStatusParams";
import type { MemoryStatusResponse } from "./MemoryStatusResponse";
import type { ModelListParams } from "./ModelListParams";
import type { ModelListResponse } from "./ModelListResponse";
import type { ModelProviderCapabilitiesReadParams } from "./ModelProviderCapabilitiesReadParams";
import type { ModelProviderCapabilitiesReadResponse } from "./ModelProviderCapabilitiesReadResponse";
import type { ModelProviderConfigWriteParams } from "./ModelProviderConfigWriteParams";
import type { ModelProviderConfigWriteResponse } from "./ModelProviderConfigWriteResponse";
import type { ModelProviderDefaultSetParams } from "./ModelProviderDefaultSetParams";
import type { ModelProviderListParams } from "./ModelProviderListParams";
import type { ModelProviderListResponse } from "./ModelProviderListResponse";
import type { NewConversationParams } from "./NewConversationParams";
import type { NewConversationResponse } from "./NewConversationResponse";
import type { NoParams } from "./NoParams";
import type { PermissionProfileListParams } from "./PermissionProfileListParams";
import type { PermissionProfileListResponse } from "./PermissionProfileListResponse";
import type { PluginListParams } from "./PluginListParams";
import type { PluginListResponse } from "./PluginListResponse";
import type { ProcessKillParams } from "./ProcessKillParams";
import type { ProcessResizePtyParams } from "./ProcessResizePtyParams";
import type { ProcessSpawnParams } from "./ProcessSpawnParams";
import type { ProcessWriteStdinParams } from "./ProcessWriteStdinParams";
import type { RequestId } from "./RequestId";
import type { ResumeConversationParams } from "./ResumeConversationParams";
import type { ResumeConversationResponse } from "./ResumeConversationResponse";
import type { ReviewStartParams } from "./ReviewStartParams";
import type { ReviewStartResponse } from "./ReviewStartResponse";
import type { SendUserMessageParams } from "./SendUserMessageParams";
import type { SendUserMessageResponse } from "./SendUserMessageResponse";
import type { SendUserTurnParams } from "./SendUserTurnParams";
import type { SetDefaultModelParams } from "./SetDefaultModelParams";
import type { SkillsConfigWriteParams } from "./SkillsConfigWriteParams";
import type { SkillsConfigWriteResponse } from "./SkillsConfigWriteResponse";
import type { SkillsExtraRootsSetParams } from "./SkillsExtraRootsSetParams";
import type { SkillsListParams } from "./SkillsListParams";
import type { SkillsListResponse } from "./SkillsListResponse";
import type { ThreadAttachmentAddParams } from "./ThreadAttachmentAddParams";
import type { ThreadAttachmentAddResponse } from "./ThreadAttachmentAddResponse";
import type { ThreadAttachmentListParams } from "./ThreadAttachmentListParams";
import type { ThreadAttachmentListResponse } from "./ThreadAttachmentListResponse";
import type { ThreadAttachmentRemoveParams } from "./ThreadAttachmentRemoveParams";
import type { ThreadBackgroundTerminalsListParams } from "./ThreadBackgroundTerminalsListParams";
import type { ThreadBackgroundTerminalsListResponse } from "./ThreadBackgroundTerminalsListResponse";
import type { ThreadCompactStartParams } from "./ThreadCompactStartParams";
import type { ThreadForkParams } from "./ThreadForkParams";
import type { ThreadGoalClearParams } from "./ThreadGoalClearParams";
import type { ThreadGoalClearResponse } from "./ThreadGoalClearResponse";
import type { ThreadGoalGetParams } from "./ThreadGoalGetParams";
import type { ThreadGoalGetResponse } from "./ThreadGoalGetResponse";
import type { ThreadGoalSetParams } from "./ThreadGoalSetParams";
import type { ThreadGoalSetResponse } from "./ThreadGoalSetResponse";
import type { ThreadIdParams } from "./ThreadIdParams";
import type { ThreadInjectItemsParams } from "./ThreadInjectItemsParams";
import type { ThreadItemsListParams } from "./ThreadItemsListParams";
import type { ThreadItemsListResponse } from "./ThreadItemsListResponse";
import type { ThreadListParams } from "./ThreadListParams";
import type { ThreadListResponse } from "./ThreadListResponse";
import type { ThreadLoadedListParams } from "./ThreadLoadedListParams";
import type { ThreadLoadedListResponse } from "./ThreadLoadedListResponse";
import type { ThreadMetadataUpdateParams } from "./ThreadMetadataUpdateParams";
import type { ThreadMetadataUpdateResponse } from "./ThreadMetadataUpdateResponse";
import type { ThreadQueueAddParams } from "./ThreadQueueAddParams";
import type { ThreadQueueAddResponse } from "./ThreadQueueAddResponse";
import type { ThreadQueueListParams } from "./ThreadQueueListParams";
import type { ThreadQueueListResponse } from "./ThreadQueueListResponse";
import type { ThreadReadParams } from "./ThreadReadParams";
import type { ThreadReadResponse } from "./ThreadReadResponse";
import type { ThreadReadStateUpdateParams } from "./ThreadReadStateUpdateParams";
import type { ThreadReadStateUpdateResponse } from "./ThreadReadStateUpdateResponse";
import type { ThreadResumeParams } from "./ThreadResumeParams";
import type { ThreadResumeResponse } from "./ThreadResumeResponse";
import type { ThreadRevertParams } from "./ThreadRevertParams";
import type { ThreadRevertResponse } from "./ThreadRevertResponse";
import type { ThreadRollbackParams } from "./ThreadRollbackParams";
import type { ThreadRollbackResponse } from "./ThreadRollbackResponse";
import type { ThreadSearchParams } from "./ThreadSearchParams";
import type { ThreadSearchResponse } from "./ThreadSearchResponse";
import type { ThreadSectionCreateParams } from "./ThreadSectionCreateParams";
import type { ThreadSectionCreateResponse } from "./ThreadSectionCreateResponse";
import type { ThreadSectionDeleteParams } from "./ThreadSectionDeleteParams";
import type { ThreadSectionDeleteResponse } from "./ThreadSectionDeleteResponse";
import type { ThreadSectionListParams } from "./ThreadSectionListParams";
import type { ThreadSectionListResponse } from "./ThreadSectionListResponse";
import type { ThreadSectionMoveParams } from "./ThreadSectionMoveParams";
import type { ThreadSectionMoveResponse } from "./ThreadSectionMoveResponse";
import type { ThreadSectionUpdateParams } from "./ThreadSectionUpdateParams";
import type { ThreadSectionUpdateResponse } from "./ThreadSectionUpdateResponse";
import type { ThreadSetNameParams } from "./ThreadSetNameParams";
import type { ThreadSettingsUpdateParams } from "./ThreadSettingsUpdateParams";
import type { ThreadSettingsUpdateResponse } from "./ThreadSettingsUpdateResponse";
import type { ThreadShellCommandParams } from "./ThreadShellCommandParams";
import type { ThreadShellCommandResponse } from "./ThreadShellCommandResponse";
import type { ThreadStartParams } from "./ThreadStartParams";
import type { ThreadStartResponse } from "./ThreadStartResponse";
import type { ThreadTurnsListParams } from "./ThreadTurnsListParams";
import type { ThreadTurnsListResponse } from "./ThreadTurnsListResponse";
import type { ThreadUnarchiveResponse } from "./ThreadUnarchiveResponse";
import type { ThreadUnsubscribeResponse } from "./ThreadUnsubscribeResponse";
import type { TurnInterruptParams } from "./TurnInterruptParams";
import type { TurnStartParams } from "./TurnStartParams";
import type { TurnStartResponse } from "./TurnStartResponse";
import type { TurnSteerParams } from "./TurnSteerParams";
import type { TurnSteerResponse } from "./TurnSteerResponse";
import type { UserInfoResponse } from "./UserInfoResponse";

/**
 * A request from the client to the server.
 */
export type ClientRequest =
  | { method: "initialize", id: RequestId, params: InitializeParams }
  | { method: "thread/start", id: RequestId, params: ThreadStartParams }
  | { method: "thread/resume", id: RequestId, params: ThreadResumeParams }
  | { method: "thread/fork", id: RequestId, params: ThreadForkParams }
  | { method: "thread/list", id: RequestId, params: ThreadListParams }
  | { method: "thread/read", id: RequestId, params: ThreadReadParams }
  | { method: "thread/turns/list", id: RequestId, params: ThreadTurnsListParams }
  | { method: "thread/items/list", id: RequestId, params: ThreadItemsListParams }
  | { method: "thread/archive", id: RequestId, params: ThreadIdParams }
  | { method: "thread/delete", id: RequestId, params: ThreadIdParams }
  | { method: "thread/metadata/update", id: RequestId, params: ThreadMetadataUpdateParams }
  | { method: "thread/inject_items", id: RequestId, params: ThreadInjectItemsParams }
  | { method: "thread/revert", id: RequestId, params: ThreadRevertParams }
  | { method: "thread/goal/set", id: RequestId, params: ThreadGoalSetParams }
  | { method: "thread/goal/get", id: RequestId, params: ThreadGoalGetParams }
  | { method: "thread/goal/clear", id: RequestId, params: ThreadGoalClearParams }
  | { method: "thread/attachment/add", id: RequestId, params: ThreadAttachmentAddParams }
  | { method: "thread/attachment/list", id: RequestId, params: ThreadAttachmentListParams }
  | { method: "thread/attachment/remove", id: RequestId, params: ThreadAttachmentRemoveParams }
  | { method: "thread/unarchive", id: RequestId, params: ThreadIdParams }
  | { method: "thread/name/set", id: RequestId, params: ThreadSetNameParams }
  | { method: "thread/loaded/list", id: RequestId, params: ThreadLoadedListParams }
  | { method: "thread/unsubscribe", id: RequestId, params: ThreadIdParams }
  | { method: "thread/rollback", id: RequestId, params: ThreadRollbackParams }
  | { method: "thread/compact/start", id: RequestId, params: ThreadCompactStartParams }
  | { method: "thread/shellCommand", id: RequestId, params: ThreadShellCommandParams }
  | { method: "review/start", id: RequestId, params: ReviewStartParams }
  | { method: "thread/backgroundTerminals/list", id: RequestId, params: ThreadBackgroundTerminalsListParams }
  | { method: "thread/queue/add", id: RequestId, params: ThreadQueueAddParams }
  | { method: "thread/queue/list", id: RequestId, params: ThreadQueueListParams }
  | { method: "thread/readState/update", id: RequestId, params: ThreadReadStateUpdateParams }
  | { method: "turn/start", id: RequestId, params: TurnStartParams }
  | { method: "turn/interrupt", id: RequestId, params: TurnInterruptParams }
  | { method: "turn/steer", id: RequestId, params: TurnSteerParams }
  | { method: "model/list", id: RequestId, params: ModelListParams }
  | { method: "collaborationMode/list", id: RequestId, params: CollaborationModeListParams }
  | { method: "config/read", id: RequestId, params: ConfigReadParams }
  | { method: "command/exec", id: RequestId, params: CommandExecParams }
  | { method: "command/exec/write", id: RequestId, params: CommandExecWriteParams }
  | { method: "command/exec/resize", id: RequestId, params: CommandExecResizeParams }
  | { method: "command/exec/terminate", id: RequestId, params: CommandExecTerminateParams }
  | { method: "fuzzyFileSearch", id: RequestId, params: FuzzyFileSearchParams }
  | { method: "process/spawn", id: RequestId, params: ProcessSpawnParams }
  | { method: "process/writeStdin", id: RequestId, params: ProcessWriteStdinParams }
  | { method: "process/kill", id: RequestId, params: ProcessKillParams }
  | { method: "process/resizePty", id: RequestId, params: ProcessResizePtyParams }
  | { method: "fuzzyFileSearch/sessionStart", id: RequestId, params: FuzzyFileSearchSessionStartParams }
  | { method: "fuzzyFileSearch/sessionUpdate", id: RequestId, params: FuzzyFileSearchSessionUpdateParams }
  | { method: "fuzzyFileSearch/sessionStop", id: RequestId, params: FuzzyFileSearchSessionStopParams }
  | { method: "fs/readFile", id: RequestId, params: FsReadFileParams }
  | { method: "fs/writeFile", id: RequestId, params: FsWriteFileParams }
  | { method: "fs/createDirectory", id: RequestId, params: FsCreateDirectoryParams }
  | { method: "fs/getMetadata", id: RequestId, params: FsGetMetadataParams }
  | { method: "fs/readDirectory", id: RequestId, params: FsReadDirectoryParams }
  | { method: "fs/remove", id: RequestId, params: FsRemoveParams }
  | { method: "fs/copy", id: RequestId, params: FsCopyParams }
  | { method: "fs/watch", id: RequestId, params: FsWatchParams }
  | { method: "fs/unwatch", id: RequestId, params: FsUnwatchParams }
  | { method: "gitDiffToRemote", id: RequestId, params: GitDiffToRemoteParams }
  | { method: "getAuthStatus", id: RequestId, params: GetAuthStatusParams }
  | { method: "getConversationSummary", id: RequestId, params: GetConversationSummaryParams }
  | { method: "newConversation", id: RequestId, params: NewConversationParams }
  | { method: "sendUserMessage", id: RequestId, params: SendUserMessageParams }
  | { method: "sendUserTurn", id: RequestId, params: SendUserTurnParams }
  | { method: "interruptConversation", id: RequestId, params: InterruptConversationParams }
  | { method: "listConversations", id: RequestId, params: ListConversationsParams }
  | { method: "resumeConversation", id: RequestId, params: ResumeConversationParams }
  | { method: "archiveConversation", id: RequestId, params: ArchiveConversationParams }
  | { method: "getUserSavedConfig", id: RequestId, params: LegacyEmptyParams }
  | { method: "setDefaultModel", id: RequestId, params: SetDefaultModelParams }
  | { method: "getUserAgent", id: RequestId, params: LegacyEmptyParams }
  | { method: "userInfo", id: RequestId, params: LegacyEmptyParams }
  | { method: "execOneOffCommand", id: RequestId, params: ExecOneOffCommandParams }
  | { method: "account/read", id: RequestId, params: GetAccountParams }
  | { method: "account/login/start", id: RequestId, params: LoginAccountParams }
  | { method: "account/login/cancel", id: RequestId, params: CancelLoginAccountParams }
  | { method: "account/logout", id: RequestId, params: NoParams }
  | { method: "account/rateLimits/read", id: RequestId, params: NoParams }
  | { method: "thread/search", id: RequestId, params: ThreadSearchParams }
  | { method: "memory/status", id: RequestId, params: MemoryStatusParams }
  | { method: "history/search", id: RequestId, params: HistorySearchParams }
  | { method: "history/open", id: RequestId, params: HistoryOpenParams }
  | { method: "index/query", id: RequestId, params: IndexQueryParams }
  | { method: "index/refresh", id: RequestId, params: IndexRefreshParams }
  | { method: "mcpServerStatus/list", id: RequestId, params: ListMcpServerStatusParams }
  | { method: "config/value/write", id: RequestId, params: ConfigValueWriteParams }
  | { method: "config/batchWrite", id: RequestId, params: ConfigBatchWriteParams }
  | { method: "config/mcpServer/reload", id: RequestId, params: NoParams }
  | { method: "configRequirements/read", id: RequestId, params: NoParams }
  | { method: "experimentalFeature/list", id: RequestId, params: ExperimentalFeatureListParams }
  | { method: "experimentalFeature/enablement/set", id: RequestId, params: ExperimentalFeatureEnablementSetParams }
  | { method: "permissionProfile/list", id: RequestId, params: PermissionProfileListParams }
  | { method: "modelProvider/list", id: RequestId, params: ModelProviderListParams }
  | { method: "modelProvider/capabilities/read", id: RequestId, params: ModelProviderCapabilitiesReadParams }
  | { method: "modelProvider/config/write", id: RequestId, params: ModelProviderConfigWriteParams }
  | { method: "modelProvider/default/set", id: RequestId, params: ModelProviderDefaultSetParams }
  | { method: "skills/list", id: RequestId, params: SkillsListParams }
  | { method: "skills/config/write", id: RequestId, params: SkillsConfigWriteParams }
  | { method: "skills/extraRoots/set", id: RequestId, params: SkillsExtraRootsSetParams }
  | { method: "hooks/list", id: RequestId, params: HooksListParams }
  | { method: "mcpServer/tool/call", id: RequestId, params: McpServerToolCallParams }
  | { method: "mcpServer/resource/read", id: RequestId, params: McpResourceReadParams }
  | { method: "feedback/save", id: RequestId, params: FeedbackSaveParams }
  | { method: "plugin/list", id: RequestId, params: PluginListParams }
  | { method: "externalAgentConfig/detect", id: RequestId, params: ExternalAgentConfigDetectParams }
  | { method: "externalAgentConfig/import", id: RequestId, params: ExternalAgentConfigImportParams }
  | { method: "threadSection/create", id: RequestId, params: ThreadSectionCreateParams }
  | { method: "threadSection/list", id: RequestId, params: ThreadSectionListParams }
  | { method: "threadSection/update", id: RequestId, params: ThreadSectionUpdateParams }
  | { method: "threadSection/delete", id: RequestId, params: ThreadSectionDeleteParams }
  | { method: "thread/section/move", id: RequestId, params: ThreadSectionMoveParams }
  | { method: "thread/settings/update", id: RequestId, params: ThreadSettingsUpdateParams };

/**
 * Each `ClientRequest` method with its params and response type.
 */
export type ClientRequestMap = {
  /**
   * Open the connection: declare the client and its capabilities. Must come first, once.
   */
  "initialize": { params: InitializeParams; response: InitializeResponse };
  /**
   * Create a thread. Followed by `thread/started`.
   */
  "thread/start": { params: ThreadStartParams; response: ThreadStartResponse };
  /**
   * Load a stored thread, apply overrides and subscribe to its events.
   */
  "thread/resume": { params: ThreadResumeParams; response: ThreadResumeResponse };
  /**
   * Copy a stored thread's history into a new thread. Followed by `thread/started`.
   */
  "thread/fork": { params: ThreadForkParams; response: ThreadStartResponse };
  /**
   * List stored threads with filters, sorting and cursor pagination.
   */
  "thread/list": { params: ThreadListParams; response: ThreadListResponse };
  /**
   * Read a thread's metadata (and optionally its turns) without loading it.
   */
  "thread/read": { params: ThreadReadParams; response: ThreadReadResponse };
  /**
   * Page through a thread's turns.
   */
  "thread/turns/list": { params: ThreadTurnsListParams; response: ThreadTurnsListResponse };
  /**
   * Page through a thread's items across its turns (or one turn's).
   */
  "thread/items/list": { params: ThreadItemsListParams; response: ThreadItemsListResponse };
  /**
   * Archive a thread: unload it and move its rollout to `archived_sessions/`.
   */
  "thread/archive": { params: ThreadIdParams; response: EmptyResponse };
  /**
   * Delete a thread for good: interrupt and unload it, remove its rollout (live or
   * archived) and its rows in the thread and history indexes. Followed by
   * `thread/deleted`.
   */
  "thread/delete": { params: ThreadIdParams; response: EmptyResponse };
  /**
   * Patch a thread's stored metadata (Git information, project, Daybreak choice).
   */
  "thread/metadata/update": { params: ThreadMetadataUpdateParams; response: ThreadMetadataUpdateResponse };
  /**
   * Append raw Responses API items to a loaded thread's model-visible history.
   */
  "thread/inject_items": { params: ThreadInjectItemsParams; response: EmptyResponse };
  /**
   * Drop a turn and every later one from a thread's history (files are not restored).
   * Followed by `thread/reverted`.
   */
  "thread/revert": { params: ThreadRevertParams; response: ThreadRevertResponse };
  /**
   * Set or change a loaded thread's goal. Followed by `thread/goal/updated`.
   */
  "thread/goal/set": { params: ThreadGoalSetParams; response: ThreadGoalSetResponse };
  /**
   * A loaded thread's goal, if it has one.
   */
  "thread/goal/get": { params: ThreadGoalGetParams; response: ThreadGoalGetResponse };
  /**
   * Clear a loaded thread's goal. Followed by `thread/goal/cleared` when there was one.
   */
  "thread/goal/clear": { params: ThreadGoalClearParams; response: ThreadGoalClearResponse };
  /**
   * Keep an attachment with a thread, or find the one already kept with the same type and
   * identity. Followed by `thread/attachment/updated` when created.
   */
  "thread/attachment/add": { params: ThreadAttachmentAddParams; response: ThreadAttachmentAddResponse };
  /**
   * A thread's attachments, oldest first, one page at a time.
   */
  "thread/attachment/list": { params: ThreadAttachmentListParams; response: ThreadAttachmentListResponse };
  /**
   * Remove a thread's attachment by type and identity. Followed by
   * `thread/attachment/updated` when there was one.
   */
  "thread/attachment/remove": { params: ThreadAttachmentRemoveParams; response: EmptyResponse };
  /**
   * Restore an archived thread.
   */
  "thread/unarchive": { params: ThreadIdParams; response: ThreadUnarchiveResponse };
  /**
   * Name a thread. Followed by `thread/name/updated`.
   */
  "thread/name/set": { params: ThreadSetNameParams; response: EmptyResponse };
  /**
   * List the ids of the threads loaded in this server.
   */
  "thread/loaded/list": { params: ThreadLoadedListParams; response: ThreadLoadedListResponse };
  /**
   * Stop receiving a thread's events on this connection.
   */
  "thread/unsubscribe": { params: ThreadIdParams; response: ThreadUnsubscribeResponse };
  /**
   * Drop the last `numTurns` turns from a loaded, idle thread's history (persisted as a
   * rollback record). Answers with the thread and its remaining turns; files changed by the
   * dropped turns are not reverted.
   */
  "thread/rollback": { params: ThreadRollbackParams; response: ThreadRollbackResponse };
  /**
   * Compact a loaded, idle thread's history now: a turn that asks the model for a summary
   * and continues from it, shown as a `contextCompaction` item. Answers at once with `{}`;
   * the turn's notifications follow.
   */
  "thread/compact/start": { params: ThreadCompactStartParams; response: EmptyResponse };
  /**
   * Run a user's shell command in a loaded, idle thread, under the thread's sandbox: a turn
   * of its own with one `commandExecution` item (`source: "userShell"`) and its output
   * deltas. Answers at once with `{}`; the turn's notifications follow.
   */
  "thread/shellCommand": { params: ThreadShellCommandParams; response: ThreadShellCommandResponse };
  /**
   * Review code changes in a loaded, idle thread: uncommitted changes, the changes against a
   * base branch, one commit, or custom instructions. Tandem collects the diff itself (under
   * the thread's sandbox, capped) and sends it with its review rubric; the turn shows an
   * `enteredReviewMode` item, then `exitedReviewMode` and an `agentMessage` carrying the
   * findings. Answers at once with the turn; its notifications follow.
   */
  "review/start": { params: ReviewStartParams; response: ReviewStartResponse };
  /**
   * List a loaded thread's `exec_command` processes still running after their tool call
   * returned, oldest first.
   */
  "thread/backgroundTerminals/list": { params: ThreadBackgroundTerminalsListParams; response: ThreadBackgroundTerminalsListResponse };
  /**
   * Queue an input behind the thread's running turn: it starts a turn of its own when the
   * running one ends (not after an interrupt), in order. On an idle thread it starts at once.
   */
  "thread/queue/add": { params: ThreadQueueAddParams; response: ThreadQueueAddResponse };
  /**
   * List the inputs queued behind the thread's running turn, in the order they will start.
   */
  "thread/queue/list": { params: ThreadQueueListParams; response: ThreadQueueListResponse };
  /**
   * Mark a stored thread read or unread for its owner. Refused when `expectedRevision` is
   * not the current revision; followed by `thread/readState/changed`.
   */
  "thread/readState/update": { params: ThreadReadStateUpdateParams; response: ThreadReadStateUpdateResponse };
  /**
   * Start a turn. On a busy thread the input joins the running turn, which is returned.
   */
  "turn/start": { params: TurnStartParams; response: TurnStartResponse };
  /**
   * Interrupt the running turn. Followed by `turn/completed` with status `interrupted`.
   */
  "turn/interrupt": { params: TurnInterruptParams; response: EmptyResponse };
  /**
   * Add input to the running turn.
   */
  "turn/steer": { params: TurnSteerParams; response: TurnSteerResponse };
  /**
   * List the models of the configured provider.
   */
  "model/list": { params: ModelListParams; response: ModelListResponse };
  /**
   * Experimental: the collaboration-mode presets (`Plan`, `Default`) as partial masks the
   * client applies to its current mode before `turn/start.collaborationMode`.
   */
  "collaborationMode/list": { params: CollaborationModeListParams; response: CollaborationModeListResponse };
  /**
   * Read the effective configuration.
   */
  "config/read": { params: ConfigReadParams; response: ConfigReadResponse };
  /**
   * Run a standalone command (no thread, no turn) and return its output.
   */
  "command/exec": { params: CommandExecParams; response: CommandExecResponse };
  /**
   * Write to the stdin of a running `command/exec`.
   */
  "command/exec/write": { params: CommandExecWriteParams; response: EmptyResponse };
  /**
   * Resize the terminal of a running `command/exec` with `tty`.
   */
  "command/exec/resize": { params: CommandExecResizeParams; response: EmptyResponse };
  /**
   * Kill a running `command/exec` and its process group.
   */
  "command/exec/terminate": { params: CommandExecTerminateParams; response: EmptyResponse };
  /**
   * Fuzzy-search file names under some roots (gitignore-aware).
   */
  "fuzzyFileSearch": { params: FuzzyFileSearchParams; response: FuzzyFileSearchResponse };
  /**
   * Experimental: start a process outside the sandbox (only under a `danger-full-access`
   * ceiling); answered once it runs, its output and exit follow as notifications.
   */
  "process/spawn": { params: ProcessSpawnParams; response: EmptyResponse };
  /**
   * Experimental: write to (or close) a running process's stdin.
   */
  "process/writeStdin": { params: ProcessWriteStdinParams; response: EmptyResponse };
  /**
   * Experimental: kill a running process's process group.
   */
  "process/kill": { params: ProcessKillParams; response: EmptyResponse };
  /**
   * Experimental: resize a running `tty` process's terminal.
   */
  "process/resizePty": { params: ProcessResizePtyParams; response: EmptyResponse };
  /**
   * Experimental: open a fuzzy-file-search session over some roots.
   */
  "fuzzyFileSearch/sessionStart": { params: FuzzyFileSearchSessionStartParams; response: EmptyResponse };
  /**
   * Experimental: search a session's roots for a new query; the matches follow as
   * `fuzzyFileSearch/sessionUpdated`.
   */
  "fuzzyFileSearch/sessionUpdate": { params: FuzzyFileSearchSessionUpdateParams; response: EmptyResponse };
  /**
   * Experimental: end a fuzzy-file-search session.
   */
  "fuzzyFileSearch/sessionStop": { params: FuzzyFileSearchSessionStopParams; response: EmptyResponse };
  /**
   * Read a file's bytes (base64) within the connection's file roots.
   */
  "fs/readFile": { params: FsReadFileParams; response: FsReadFileResponse };
  /**
   * Create or replace a file within the connection's file roots.
   */
  "fs/writeFile": { params: FsWriteFileParams; response: EmptyResponse };
  /**
   * Create a directory (and, by default, its parents) within the file roots.
   */
  "fs/createDirectory": { params: FsCreateDirectoryParams; response: EmptyResponse };
  /**
   * Whether a path is a file, a directory or a symbolic link, with its times.
   */
  "fs/getMetadata": { params: FsGetMetadataParams; response: FsGetMetadataResponse };
  /**
   * List a directory's direct children within the file roots.
   */
  "fs/readDirectory": { params: FsReadDirectoryParams; response: FsReadDirectoryResponse };
  /**
   * Remove a file or a directory (by default with its contents) within the file roots.
   */
  "fs/remove": { params: FsRemoveParams; response: EmptyResponse };
  /**
   * Copy a file, or a directory with `recursive`, within the file roots.
   */
  "fs/copy": { params: FsCopyParams; response: EmptyResponse };
  /**
   * Watch a file or a directory's children; changes arrive as `fs/changed`.
   */
  "fs/watch": { params: FsWatchParams; response: FsWatchResponse };
  /**
   * Stop a watch started by `fs/watch`.
   */
  "fs/unwatch": { params: FsUnwatchParams; response: EmptyResponse };
  /**
   * Diff the working tree against its remote-tracking commit.
   */
  "gitDiffToRemote": { params: GitDiffToRemoteParams; response: GitDiffToRemoteResponse };
  /**
   * Legacy: the login state. Tandem has no OpenAI login, so nobody is logged in and none
   * is required.
   */
  "getAuthStatus": { params: GetAuthStatusParams; response: GetAuthStatusResponse };
  /**
   * Legacy: the summary of one stored thread, by id or by rollout path.
   */
  "getConversationSummary": { params: GetConversationSummaryParams; response: GetConversationSummaryResponse };
  /**
   * Legacy: start a conversation (a thread). Its events arrive as `codex/event`; its
   * approvals as `applyPatchApproval` / `execCommandApproval`.
   */
  "newConversation": { params: NewConversationParams; response: NewConversationResponse };
  /**
   * Legacy: start a turn on a conversation with its current settings.
   */
  "sendUserMessage": { params: SendUserMessageParams; response: SendUserMessageResponse };
  /**
   * Legacy: start a turn on a conversation with explicit settings, which stay in effect.
   */
  "sendUserTurn": { params: SendUserTurnParams; response: SendUserMessageResponse };
  /**
   * Legacy: interrupt a conversation's running turn; answered once the turn has stopped.
   */
  "interruptConversation": { params: InterruptConversationParams; response: InterruptConversationResponse };
  /**
   * Legacy: list stored conversations (threads), newest first.
   */
  "listConversations": { params: ListConversationsParams; response: ListConversationsResponse };
  /**
   * Legacy: load a stored conversation (thread); its events then arrive as `codex/event`.
   */
  "resumeConversation": { params: ResumeConversationParams; response: ResumeConversationResponse };
  /**
   * Legacy: archive a conversation (as `thread/archive`).
   */
  "archiveConversation": { params: ArchiveConversationParams; response: LegacyEmptyResponse };
  /**
   * Legacy: the settings saved in `config.toml`.
   */
  "getUserSavedConfig": { params: LegacyEmptyParams; response: GetUserSavedConfigResponse };
  /**
   * Legacy: write the default model and reasoning effort to `config.toml`, keeping its
   * comments and layout.
   */
  "setDefaultModel": { params: SetDefaultModelParams; response: LegacyEmptyResponse };
  /**
   * Legacy: the user agent the server sends to model providers.
   */
  "getUserAgent": { params: LegacyEmptyParams; response: GetUserAgentResponse };
  /**
   * Legacy: the signed-in user; nobody, since Tandem has no ChatGPT login.
   */
  "userInfo": { params: LegacyEmptyParams; response: UserInfoResponse };
  /**
   * Legacy: run one command outside any conversation (as `command/exec`).
   */
  "execOneOffCommand": { params: ExecOneOffCommandParams; response: ExecOneOffCommandResponse };
  /**
   * The account: an API key stored with `account/login/start` or set in the environment.
   */
  "account/read": { params: GetAccountParams; response: GetAccountResponse };
  /**
   * Log in. Only `{"type": "apiKey"}` is supported: the key is stored in
   * `$TANDEM_HOME/auth.json` (mode 0600) and used by providers whose key variable is unset.
   * Followed by `account/login/completed`, `account/updated` and `authStatusChange`.
   */
  "account/login/start": { params: LoginAccountParams; response: LoginAccountResponse };
  /**
   * Cancel a login in progress. API-key logins complete at once, so the answer is `notFound`.
   */
  "account/login/cancel": { params: CancelLoginAccountParams; response: CancelLoginAccountResponse };
  /**
   * Log out: remove the stored API key. Followed by `account/updated` and `authStatusChange`.
   */
  "account/logout": { params: NoParams; response: EmptyResponse };
  /**
   * The latest rate limits seen in the provider's `x-ratelimit-*` response headers.
   */
  "account/rateLimits/read": { params: NoParams; response: GetAccountRateLimitsResponse };
  /**
   * Experimental: the caller's threads whose conversations match a search term, from the
   * history index, best match first (or by a time).
   */
  "thread/search": { params: ThreadSearchParams; response: ThreadSearchResponse };
  /**
   * Experimental: the state of cross-thread memories, which Tandem does not keep (never
   * ready).
   */
  "memory/status": { params: MemoryStatusParams; response: MemoryStatusResponse };
  /**
   * BM25 search over past conversations (the MCP tool `search`).
   */
  "history/search": { params: HistorySearchParams; response: HistorySearchResponse };
  /**
   * The events around one past event, in conversation order (the MCP tool `open`).
   */
  "history/open": { params: HistoryOpenParams; response: HistoryOpenResponse };
  /**
   * Search the project index (the MCP tool `query_project`): refreshes the index
   * incrementally, sending `index/progress`, then answers with ranked snippets.
   */
  "index/query": { params: IndexQueryParams; response: IndexQueryResponse };
  /**
   * Warm or rebuild the project index (the MCP tool `repo_index_refresh`), sending
   * `index/progress` as it goes.
   */
  "index/refresh": { params: IndexRefreshParams; response: IndexRefreshResponse };
  /**
   * The configured MCP servers: their tools, auth and startup state.
   */
  "mcpServerStatus/list": { params: ListMcpServerStatusParams; response: ListMcpServerStatusResponse };
  /**
   * Write one key of the user's `config.toml`, keeping its comments and order. Only the
   * keys a client may set (`[clients] allow_client_config`) are written; threads started
   * afterwards use the new file.
   */
  "config/value/write": { params: ConfigValueWriteParams; response: ConfigWriteResponse };
  /**
   * Write several keys of the user's `config.toml` at once: all of them or none.
   */
  "config/batchWrite": { params: ConfigBatchWriteParams; response: ConfigWriteResponse };
  /**
   * Read `config.toml` again, so that threads started afterwards get the MCP servers it
   * now names. Answers `{}`.
   */
  "config/mcpServer/reload": { params: NoParams; response: EmptyResponse };
  /**
   * The restrictions of the operator's policy (`[clients]`) a client can observe.
   */
  "configRequirements/read": { params: NoParams; response: ConfigRequirementsReadResponse };
  /**
   * The feature flags and their state; Tandem has none, so the list is empty.
   */
  "experimentalFeature/list": { params: ExperimentalFeatureListParams; response: ExperimentalFeatureListResponse };
  /**
   * Turn feature flags on or off for this process; Tandem has none, so nothing changes.
   */
  "experimentalFeature/enablement/set": { params: ExperimentalFeatureEnablementSetParams; response: ExperimentalFeatureEnablementSetResponse };
  /**
   * The built-in permission profiles and whether this client may choose each.
   */
  "permissionProfile/list": { params: PermissionProfileListParams; response: PermissionProfileListResponse };
  /**
   * The configured model providers and the default one.
   */
  "modelProvider/list": { params: ModelProviderListParams; response: ModelProviderListResponse };
  /**
   * Which hosted tools the default provider's threads are offered.
   */
  "modelProvider/capabilities/read": { params: ModelProviderCapabilitiesReadParams; response: ModelProviderCapabilitiesReadResponse };
  /**
   * Change a provider's settings in `config.toml`, or define a new one; subject to the
   * same key policy as `config/value/write`.
   */
  "modelProvider/config/write": { params: ModelProviderConfigWriteParams; response: ModelProviderConfigWriteResponse };
  /**
   * Choose the default provider (`model_provider` in `config.toml`) among the configured
   * ones.
   */
  "modelProvider/default/set": { params: ModelProviderDefaultSetParams; response: ConfigWriteResponse };
  /**
   * The skills (`SKILL.md` directories) each working directory sees, and which are enabled.
   */
  "skills/list": { params: SkillsListParams; response: SkillsListResponse };
  /**
   * Enable or disable a skill, by path or by name, in `config.toml`'s `[[skills.config]]`.
   */
  "skills/config/write": { params: SkillsConfigWriteParams; response: SkillsConfigWriteResponse };
  /**
   * Set the connection's extra skill roots, within its file roots (then `skills/changed`).
   */
  "skills/extraRoots/set": { params: SkillsExtraRootsSetParams; response: EmptyResponse };
  /**
   * The hooks of the operator's `config.toml`, with their trust keys and hashes.
   */
  "hooks/list": { params: HooksListParams; response: HooksListResponse };
  /**
   * Call a tool of a loaded thread's MCP server (`clients.allow_mcp_server_calls`).
   */
  "mcpServer/tool/call": { params: McpServerToolCallParams; response: McpServerToolCallResponse };
  /**
   * Read a resource of a loaded thread's MCP server (`clients.allow_mcp_server_calls`).
   */
  "mcpServer/resource/read": { params: McpResourceReadParams; response: McpResourceReadResponse };
  /**
   * Write a local feedback bundle (ZIP: a thread's rollout, logs; secrets masked).
   */
  "feedback/save": { params: FeedbackSaveParams; response: FeedbackSaveResponse };
  /**
   * The local plugins: none, since Tandem installs no plugins.
   */
  "plugin/list": { params: PluginListParams; response: PluginListResponse };
  /**
   * What of another agent's setup (`CLAUDE.md`, skills, MCP servers, hooks) could be imported.
   */
  "externalAgentConfig/detect": { params: ExternalAgentConfigDetectParams; response: ExternalAgentConfigDetectResponse };
  /**
   * Import detected items; MCP servers and hooks only locally, and disabled.
   */
  "externalAgentConfig/import": { params: ExternalAgentConfigImportParams; response: ExternalAgentConfigImportResponse };
  /**
   * Create a section of the caller's threads.
   */
  "threadSection/create": { params: ThreadSectionCreateParams; response: ThreadSectionCreateResponse };
  /**
   * The caller's sections, the built-in "Pinned" first.
   */
  "threadSection/list": { params: ThreadSectionListParams; response: ThreadSectionListResponse };
  /**
   * Rename a section or change its appearance.
   */
  "threadSection/update": { params: ThreadSectionUpdateParams; response: ThreadSectionUpdateResponse };
  /**
   * Delete a section; its threads then belong to none.
   */
  "threadSection/delete": { params: ThreadSectionDeleteParams; response: ThreadSectionDeleteResponse };
  /**
   * Put a thread into a section, move it within one, or take it out. Followed by
   * `thread/section/changed`.
   */
  "thread/section/move": { params: ThreadSectionMoveParams; response: ThreadSectionMoveResponse };
  /**
   * Change a loaded thread's settings for its next turns, without starting one. Followed
   * by `thread/settings/updated` when a setting changed.
   */
  "thread/settings/update": { params: ThreadSettingsUpdateParams; response: ThreadSettingsUpdateResponse };
};
