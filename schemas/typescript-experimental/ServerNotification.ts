// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AccountLoginCompletedNotification } from "./AccountLoginCompletedNotification";
import type { AccountRateLimitsUpdatedNotification } from "./AccountRateLimitsUpdatedNotification";
import type { AccountUpdatedNotification } from "./AccountUpdatedNotification";
import type { AuthStatusChangeNotification } from "./AuthStatusChangeNotification";
import type { CodexEventNotification } from "./CodexEventNotification";
import type { CommandExecOutputDeltaNotification } from "./CommandExecOutputDeltaNotification";
import type { ConfigWarningNotification } from "./ConfigWarningNotification";
import type { ContextCompactedNotification } from "./ContextCompactedNotification";
import type { DeprecationNoticeNotification } from "./DeprecationNoticeNotification";
import type { ErrorNotification } from "./ErrorNotification";
import type { ExternalAgentConfigImportNotification } from "./ExternalAgentConfigImportNotification";
import type { FileChangePatchUpdatedNotification } from "./FileChangePatchUpdatedNotification";
import type { FsChangedNotification } from "./FsChangedNotification";
import type { FuzzyFileSearchSessionUpdatedNotification } from "./FuzzyFileSearchSessionUpdatedNotification";
import type { HookRunNotification } from "./HookRunNotification";
import type { IndexProgressNotification } from "./IndexProgressNotification";
import type { ItemCompletedNotification } from "./ItemCompletedNotification";
import type { ItemDeltaNotification } from "./ItemDeltaNotification";
import type { ItemStartedNotification } from "./ItemStartedNotification";
import type { LoginChatGptCompleteNotification } from "./LoginChatGptCompleteNotification";
import type { McpServerStatusUpdatedNotification } from "./McpServerStatusUpdatedNotification";
import type { McpToolCallProgressNotification } from "./McpToolCallProgressNotification";
import type { PlanDeltaNotification } from "./PlanDeltaNotification";
import type { ProcessExitedNotification } from "./ProcessExitedNotification";
import type { ProcessOutputDeltaNotification } from "./ProcessOutputDeltaNotification";
import type { ReasoningSummaryPartAddedNotification } from "./ReasoningSummaryPartAddedNotification";
import type { ReasoningSummaryTextDeltaNotification } from "./ReasoningSummaryTextDeltaNotification";
import type { ReasoningTextDeltaNotification } from "./ReasoningTextDeltaNotification";
import type { ServerRequestResolvedNotification } from "./ServerRequestResolvedNotification";
import type { SkillsChangedNotification } from "./SkillsChangedNotification";
import type { TerminalInteractionNotification } from "./TerminalInteractionNotification";
import type { ThreadAttachmentUpdatedNotification } from "./ThreadAttachmentUpdatedNotification";
import type { ThreadGoalUpdatedNotification } from "./ThreadGoalUpdatedNotification";
import type { ThreadIdNotification } from "./ThreadIdNotification";
import type { ThreadNameUpdatedNotification } from "./ThreadNameUpdatedNotification";
import type { ThreadQueueChangedNotification } from "./ThreadQueueChangedNotification";
import type { ThreadReadStateChangedNotification } from "./ThreadReadStateChangedNotification";
import type { ThreadSectionChangedNotification } from "./ThreadSectionChangedNotification";
import type { ThreadSettingsUpdatedNotification } from "./ThreadSettingsUpdatedNotification";
import type { ThreadStartedNotification } from "./ThreadStartedNotification";
import type { ThreadStatusChangedNotification } from "./ThreadStatusChangedNotification";
import type { ThreadTokenUsageUpdatedNotification } from "./ThreadTokenUsageUpdatedNotification";
import type { TurnDiffUpdatedNotification } from "./TurnDiffUpdatedNotification";
import type { TurnNotification } from "./TurnNotification";
import type { TurnPlanUpdatedNotification } from "./TurnPlanUpdatedNotification";
import type { WarningNotification } from "./WarningNotification";

/**
 * A notification from the server to the client.
 */
export type ServerNotification =
  | { method: "thread/started", params: ThreadStartedNotification }
  | { method: "thread/status/changed", params: ThreadStatusChangedNotification }
  | { method: "thread/queue/changed", params: ThreadQueueChangedNotification }
  | { method: "thread/archived", params: ThreadIdNotification }
  | { method: "thread/deleted", params: ThreadIdNotification }
  | { method: "thread/reverted", params: ThreadIdNotification }
  | { method: "thread/attachment/updated", params: ThreadAttachmentUpdatedNotification }
  | { method: "thread/section/changed", params: ThreadSectionChangedNotification }
  | { method: "thread/readState/changed", params: ThreadReadStateChangedNotification }
  | { method: "thread/settings/updated", params: ThreadSettingsUpdatedNotification }
  | { method: "thread/compacted", params: ContextCompactedNotification }
  | { method: "thread/unarchived", params: ThreadIdNotification }
  | { method: "thread/name/updated", params: ThreadNameUpdatedNotification }
  | { method: "thread/closed", params: ThreadIdNotification }
  | { method: "thread/goal/cleared", params: ThreadIdNotification }
  | { method: "thread/goal/updated", params: ThreadGoalUpdatedNotification }
  | { method: "thread/tokenUsage/updated", params: ThreadTokenUsageUpdatedNotification }
  | { method: "turn/started", params: TurnNotification }
  | { method: "turn/completed", params: TurnNotification }
  | { method: "turn/diff/updated", params: TurnDiffUpdatedNotification }
  | { method: "turn/plan/updated", params: TurnPlanUpdatedNotification }
  | { method: "item/started", params: ItemStartedNotification }
  | { method: "item/completed", params: ItemCompletedNotification }
  | { method: "item/agentMessage/delta", params: ItemDeltaNotification }
  | { method: "item/reasoning/summaryTextDelta", params: ReasoningSummaryTextDeltaNotification }
  | { method: "item/reasoning/summaryPartAdded", params: ReasoningSummaryPartAddedNotification }
  | { method: "item/reasoning/textDelta", params: ReasoningTextDeltaNotification }
  | { method: "item/commandExecution/outputDelta", params: ItemDeltaNotification }
  | { method: "item/commandExecution/terminalInteraction", params: TerminalInteractionNotification }
  | { method: "item/plan/delta", params: PlanDeltaNotification }
  | { method: "item/fileChange/patchUpdated", params: FileChangePatchUpdatedNotification }
  | { method: "item/mcpToolCall/progress", params: McpToolCallProgressNotification }
  | { method: "item/fileChange/outputDelta", params: ItemDeltaNotification }
  | { method: "serverRequest/resolved", params: ServerRequestResolvedNotification }
  | { method: "error", params: ErrorNotification }
  | { method: "warning", params: WarningNotification }
  | { method: "configWarning", params: ConfigWarningNotification }
  | { method: "deprecationNotice", params: DeprecationNoticeNotification }
  | { method: "command/exec/outputDelta", params: CommandExecOutputDeltaNotification }
  | { method: "process/outputDelta", params: ProcessOutputDeltaNotification }
  | { method: "process/exited", params: ProcessExitedNotification }
  | { method: "fuzzyFileSearch/sessionUpdated", params: FuzzyFileSearchSessionUpdatedNotification }
  | { method: "fs/changed", params: FsChangedNotification }
  | { method: "index/progress", params: IndexProgressNotification }
  | { method: "codex/event", params: CodexEventNotification }
  | { method: "account/login/completed", params: AccountLoginCompletedNotification }
  | { method: "account/updated", params: AccountUpdatedNotification }
  | { method: "account/rateLimits/updated", params: AccountRateLimitsUpdatedNotification }
  | { method: "loginChatGptComplete", params: LoginChatGptCompleteNotification }
  | { method: "authStatusChange", params: AuthStatusChangeNotification }
  | { method: "mcpServer/startupStatus/updated", params: McpServerStatusUpdatedNotification }
  | { method: "skills/changed", params: SkillsChangedNotification }
  | { method: "hook/started", params: HookRunNotification }
  | { method: "hook/completed", params: HookRunNotification }
  | { method: "externalAgentConfig/import/progress", params: ExternalAgentConfigImportNotification }
  | { method: "externalAgentConfig/import/completed", params: ExternalAgentConfigImportNotification };

/**
 * Each `ServerNotification` method with its params type.
 */
export type ServerNotificationMap = {
  /**
   * A thread was created by `thread/start` or `thread/fork`.
   */
  "thread/started": { params: ThreadStartedNotification };
  /**
   * A thread's status changed.
   */
  "thread/status/changed": { params: ThreadStatusChangedNotification };
  /**
   * A thread's queue of inputs changed (`thread/queue/add`, or an input left it to start).
   */
  "thread/queue/changed": { params: ThreadQueueChangedNotification };
  /**
   * A thread was archived.
   */
  "thread/archived": { params: ThreadIdNotification };
  /**
   * A thread was deleted (`thread/delete`).
   */
  "thread/deleted": { params: ThreadIdNotification };
  /**
   * A thread's history was cut back by `thread/revert`.
   */
  "thread/reverted": { params: ThreadIdNotification };
  /**
   * An attachment of a thread was added or removed.
   */
  "thread/attachment/updated": { params: ThreadAttachmentUpdatedNotification };
  /**
   * A thread was moved into, within or out of a section (`thread/section/move`).
   */
  "thread/section/changed": { params: ThreadSectionChangedNotification };
  /**
   * A stored thread's read state changed: marked read or unread, or a turn ended with a
   * result that needs its owner's attention.
   */
  "thread/readState/changed": { params: ThreadReadStateChangedNotification };
  /**
   * A thread's settings for its next turns changed (`thread/settings/update`).
   */
  "thread/settings/updated": { params: ThreadSettingsUpdatedNotification };
  /**
   * A thread's history was compacted; follows the `contextCompaction` item's
   * `item/completed` (kept for older clients).
   */
  "thread/compacted": { params: ContextCompactedNotification };
  /**
   * A thread was unarchived.
   */
  "thread/unarchived": { params: ThreadIdNotification };
  /**
   * A thread was renamed.
   */
  "thread/name/updated": { params: ThreadNameUpdatedNotification };
  /**
   * A thread was unloaded from this server.
   */
  "thread/closed": { params: ThreadIdNotification };
  /**
   * A thread's goal was cleared (`thread/goal/clear`), or a resumed thread has none.
   */
  "thread/goal/cleared": { params: ThreadIdNotification };
  /**
   * A thread's goal was set or changed (`thread/goal/set`), or a resumed thread has one.
   */
  "thread/goal/updated": { params: ThreadGoalUpdatedNotification };
  /**
   * Token usage after a model response.
   */
  "thread/tokenUsage/updated": { params: ThreadTokenUsageUpdatedNotification };
  /**
   * A turn started streaming.
   */
  "turn/started": { params: TurnNotification };
  /**
   * A turn ended: completed, interrupted or failed. Closes every open item.
   */
  "turn/completed": { params: TurnNotification };
  /**
   * The turn's aggregated diff changed.
   */
  "turn/diff/updated": { params: TurnDiffUpdatedNotification };
  /**
   * The agent's plan changed.
   */
  "turn/plan/updated": { params: TurnPlanUpdatedNotification };
  /**
   * An item started.
   */
  "item/started": { params: ItemStartedNotification };
  /**
   * An item completed; its final state.
   */
  "item/completed": { params: ItemCompletedNotification };
  /**
   * Text appended to an agent message.
   */
  "item/agentMessage/delta": { params: ItemDeltaNotification };
  /**
   * Text appended to a reasoning summary part.
   */
  "item/reasoning/summaryTextDelta": { params: ReasoningSummaryTextDeltaNotification };
  /**
   * A reasoning summary part began.
   */
  "item/reasoning/summaryPartAdded": { params: ReasoningSummaryPartAddedNotification };
  /**
   * Raw reasoning text appended.
   */
  "item/reasoning/textDelta": { params: ReasoningTextDeltaNotification };
  /**
   * Output of a running command.
   */
  "item/commandExecution/outputDelta": { params: ItemDeltaNotification };
  /**
   * The model wrote to (or polled) a command it left running (`write_stdin`).
   */
  "item/commandExecution/terminalInteraction": { params: TerminalInteractionNotification };
  /**
   * Text appended to the proposed plan (`plan` item) of a plan-mode turn.
   */
  "item/plan/delta": { params: PlanDeltaNotification };
  /**
   * The changes of a `fileChange` item as known so far.
   */
  "item/fileChange/patchUpdated": { params: FileChangePatchUpdatedNotification };
  /**
   * An MCP server reported progress on the tool call of an `mcpToolCall` item.
   */
  "item/mcpToolCall/progress": { params: McpToolCallProgressNotification };
  /**
   * Textual output of a patch application (legacy; not emitted by Tandem).
   */
  "item/fileChange/outputDelta": { params: ItemDeltaNotification };
  /**
   * A server request was answered or cleaned up.
   */
  "serverRequest/resolved": { params: ServerRequestResolvedNotification };
  /**
   * A turn error (before the failing `turn/completed`, or while retrying).
   */
  "error": { params: ErrorNotification };
  /**
   * A warning.
   */
  "warning": { params: WarningNotification };
  /**
   * A configuration problem that did not stop the server.
   */
  "configWarning": { params: ConfigWarningNotification };
  /**
   * The client used a deprecated feature.
   */
  "deprecationNotice": { params: DeprecationNoticeNotification };
  /**
   * Output of a streaming `command/exec`.
   */
  "command/exec/outputDelta": { params: CommandExecOutputDeltaNotification };
  /**
   * Output of a streaming `process/spawn`.
   */
  "process/outputDelta": { params: ProcessOutputDeltaNotification };
  /**
   * A `process/spawn` process ended.
   */
  "process/exited": { params: ProcessExitedNotification };
  /**
   * The matches of a fuzzy-file-search session's latest query.
   */
  "fuzzyFileSearch/sessionUpdated": { params: FuzzyFileSearchSessionUpdatedNotification };
  /**
   * Paths under an `fs/watch` changed.
   */
  "fs/changed": { params: FsChangedNotification };
  /**
   * Progress of the refresh run by this connection's `index/refresh` or `index/query`.
   */
  "index/progress": { params: IndexProgressNotification };
  /**
   * Legacy: one Codex event (`EventMsg`) of a conversation, for threads opened with
   * `newConversation` / `resumeConversation` (and, over MCP, of a `codex` tool call).
   */
  "codex/event": { params: CodexEventNotification };
  /**
   * A login finished (after `account/login/start`).
   */
  "account/login/completed": { params: AccountLoginCompletedNotification };
  /**
   * The login changed (after a login or a logout).
   */
  "account/updated": { params: AccountUpdatedNotification };
  /**
   * A model response carried new rate limits (`x-ratelimit-*` headers).
   */
  "account/rateLimits/updated": { params: AccountRateLimitsUpdatedNotification };
  /**
   * Legacy: a ChatGPT login finished. Never sent: Tandem has no ChatGPT login.
   */
  "loginChatGptComplete": { params: LoginChatGptCompleteNotification };
  /**
   * Legacy: the auth mode changed; sent with `account/updated`.
   */
  "authStatusChange": { params: AuthStatusChangeNotification };
  /**
   * An MCP server of a thread is starting, ready, failed or cancelled.
   */
  "mcpServer/startupStatus/updated": { params: McpServerStatusUpdatedNotification };
  /**
   * The skills a client would list changed; list them again.
   */
  "skills/changed": { params: SkillsChangedNotification };
  /**
   * A trusted hook started running in a turn.
   */
  "hook/started": { params: HookRunNotification };
  /**
   * A hook run ended: completed, failed or blocked, with what it said.
   */
  "hook/completed": { params: HookRunNotification };
  /**
   * One item of an `externalAgentConfig/import` was imported (or failed).
   */
  "externalAgentConfig/import/progress": { params: ExternalAgentConfigImportNotification };
  /**
   * An `externalAgentConfig/import` ended, with every item's outcome.
   */
  "externalAgentConfig/import/completed": { params: ExternalAgentConfigImportNotification };
};
