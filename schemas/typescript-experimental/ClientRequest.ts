// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecParams } from "./CommandExecParams";
import type { CommandExecResizeParams } from "./CommandExecResizeParams";
import type { CommandExecResponse } from "./CommandExecResponse";
import type { CommandExecTerminateParams } from "./CommandExecTerminateParams";
import type { CommandExecWriteParams } from "./CommandExecWriteParams";
import type { ConfigReadParams } from "./ConfigReadParams";
import type { ConfigReadResponse } from "./ConfigReadResponse";
import type { EmptyResponse } from "./EmptyResponse";
import type { FuzzyFileSearchParams } from "./FuzzyFileSearchParams";
import type { FuzzyFileSearchResponse } from "./FuzzyFileSearchResponse";
import type { GetAuthStatusParams } from "./GetAuthStatusParams";
import type { GetAuthStatusResponse } from "./GetAuthStatusResponse";
import type { GitDiffToRemoteParams } from "./GitDiffToRemoteParams";
import type { GitDiffToRemoteResponse } from "./GitDiffToRemoteResponse";
import type { HistoryOpenParams } from "./HistoryOpenParams";
import type { HistoryOpenResponse } from "./HistoryOpenResponse";
import type { HistorySearchParams } from "./HistorySearchParams";
import type { HistorySearchResponse } from "./HistorySearchResponse";
import type { InitializeParams } from "./InitializeParams";
import type { InitializeResponse } from "./InitializeResponse";
import type { ListMcpServerStatusParams } from "./ListMcpServerStatusParams";
import type { ListMcpServerStatusResponse } from "./ListMcpServerStatusResponse";
import type { ModelListParams } from "./ModelListParams";
import type { ModelListResponse } from "./ModelListResponse";
import type { RequestId } from "./RequestId";
import type { ThreadForkParams } from "./ThreadForkParams";
import type { ThreadIdParams } from "./ThreadIdParams";
import type { ThreadListParams } from "./ThreadListParams";
import type { ThreadListResponse } from "./ThreadListResponse";
import type { ThreadLoadedListParams } from "./ThreadLoadedListParams";
import type { ThreadLoadedListResponse } from "./ThreadLoadedListResponse";
import type { ThreadReadParams } from "./ThreadReadParams";
import type { ThreadReadResponse } from "./ThreadReadResponse";
import type { ThreadResumeParams } from "./ThreadResumeParams";
import type { ThreadResumeResponse } from "./ThreadResumeResponse";
import type { ThreadSetNameParams } from "./ThreadSetNameParams";
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
  | { method: "thread/archive", id: RequestId, params: ThreadIdParams }
  | { method: "thread/unarchive", id: RequestId, params: ThreadIdParams }
  | { method: "thread/name/set", id: RequestId, params: ThreadSetNameParams }
  | { method: "thread/loaded/list", id: RequestId, params: ThreadLoadedListParams }
  | { method: "thread/unsubscribe", id: RequestId, params: ThreadIdParams }
  | { method: "turn/start", id: RequestId, params: TurnStartParams }
  | { method: "turn/interrupt", id: RequestId, params: TurnInterruptParams }
  | { method: "turn/steer", id: RequestId, params: TurnSteerParams }
  | { method: "model/list", id: RequestId, params: ModelListParams }
  | { method: "config/read", id: RequestId, params: ConfigReadParams }
  | { method: "command/exec", id: RequestId, params: CommandExecParams }
  | { method: "command/exec/write", id: RequestId, params: CommandExecWriteParams }
  | { method: "command/exec/resize", id: RequestId, params: CommandExecResizeParams }
  | { method: "command/exec/terminate", id: RequestId, params: CommandExecTerminateParams }
  | { method: "fuzzyFileSearch", id: RequestId, params: FuzzyFileSearchParams }
  | { method: "gitDiffToRemote", id: RequestId, params: GitDiffToRemoteParams }
  | { method: "getAuthStatus", id: RequestId, params: GetAuthStatusParams }
  | { method: "history/search", id: RequestId, params: HistorySearchParams }
  | { method: "history/open", id: RequestId, params: HistoryOpenParams }
  | { method: "mcpServerStatus/list", id: RequestId, params: ListMcpServerStatusParams };

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
   * Archive a thread: unload it and move its rollout to `archived_sessions/`.
   */
  "thread/archive": { params: ThreadIdParams; response: EmptyResponse };
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
   * Diff the working tree against its remote-tracking commit.
   */
  "gitDiffToRemote": { params: GitDiffToRemoteParams; response: GitDiffToRemoteResponse };
  /**
   * Legacy: the login state. Tandem has no OpenAI login, so nobody is logged in and none
   * is required.
   */
  "getAuthStatus": { params: GetAuthStatusParams; response: GetAuthStatusResponse };
  /**
   * BM25 search over past conversations (the MCP tool `search`).
   */
  "history/search": { params: HistorySearchParams; response: HistorySearchResponse };
  /**
   * The events around one past event, in conversation order (the MCP tool `open`).
   */
  "history/open": { params: HistoryOpenParams; response: HistoryOpenResponse };
  /**
   * The configured MCP servers: their tools, auth and startup state.
   */
  "mcpServerStatus/list": { params: ListMcpServerStatusParams; response: ListMcpServerStatusResponse };
};
