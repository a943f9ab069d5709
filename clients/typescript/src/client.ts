// `AppServerClient`: the typed client. Every method, params and result type comes from the
// generated method tables (see `protocol.ts`); this file adds the transports (a spawned process's
// stdio, a stream pair, or a listener's WebSocket; see `websocket.ts`) and conveniences.

import { type ChildProcess, spawn as spawnProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { AsyncQueue } from "./async-queue.js";
import { Connection, NO_REPLY, type RequestId, type RequestOptions } from "./connection.js";
import { ConnectionError, exitMessage, messageOf } from "./errors.js";
import { Listeners } from "./listeners.js";
import {
  type CloseOptions,
  type ConnectOptions,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_COMMAND,
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  type ExitInfo,
  type SpawnOptions,
  type UrlConnectOptions,
} from "./options.js";
import type {
  ExperimentalProtocol,
  HandlerFor,
  InitializeResponseOf,
  NotificationMethod,
  NotificationOf,
  NotificationParams,
  Protocol,
  RequestMethod,
  RequestParams,
  RequestResult,
  ServerRequestHandler,
  ServerRequestMethod,
  StableProtocol,
  TurnStartParamsOf,
  UserInputOf,
} from "./protocol.js";
import { type NotificationSink, type TurnRun, startTurnRun } from "./turn-run.js";
import { CLIENT_NAME, CLIENT_VERSION } from "./version.js";
import { type WebSocketStreams, WebSocketProtocolError, WebSocketRefusedError, openWebSocket } from "./websocket.js";

/** Options of `indexQuery` and `indexRefresh`. */
export interface IndexRequestOptions extends RequestOptions {
  /** Called with each `index/progress` notification while the request runs. */
  onProgress?: (params: NotificationParams<ExperimentalProtocol, "index/progress">) => void;
}

/** Options that opt a connection into the experimental surface. */
type ExperimentalOptions<O> = O & { capabilities: { experimentalApi: true } };

/** What the overloaded factories return before their overloads narrow it. */
type AnyClient = AppServerClient<StableProtocol> | AppServerClient<ExperimentalProtocol>;

/** An untyped server-request handler, as stored. */
type StoredHandler = (params: unknown, request: { id: RequestId; method: string }) => unknown;

/** The pipes and (for `spawn`) the process a client talks to. */
interface Transport {
  input: Readable;
  output: Writable;
  child: ChildProcess | undefined;
  description: string;
  /** For `connectUrl`: the WebSocket under the pipes. */
  webSocket?: WebSocketStreams;
}

/**
 * A connection to a Tandem (or Codex) app-server, typed by the protocol surface `P`.
 *
 * Create one with {@link AppServerClient.spawn}, {@link AppServerClient.connectUrl} or
 * {@link AppServerClient.connect}; each performs the `initialize` handshake before resolving.
 */
export class AppServerClient<P extends Protocol = StableProtocol> {
  /** The server process, when the client spawned it. */
  readonly serverProcess: ChildProcess | undefined;
  /** Resolves when the server process exits (or, for `connect`, when its output ends). */
  readonly exited: Promise<ExitInfo>;
  private initializeResult: InitializeResponseOf<P> | undefined;
  private readonly connection: Connection;
  private readonly transport: Transport;
  private readonly notificationListeners = new Map<string, Listeners<unknown>>();
  private readonly sinks = new Set<NotificationSink>();
  private readonly serverRequestHandlers = new Map<string, StoredHandler>();
  private readonly errorListeners = new Listeners<Error>();
  private readonly exitListeners = new Listeners<ExitInfo>();
  private closing = false;
  private answerUnhandled = true;
  private inputDrained = false;
  private exitInfo: ExitInfo | undefined;
  private exitReported = false;
  private resolveExited!: (exit: ExitInfo) => void;

  private constructor(transport: Transport) {
    this.transport = transport;
    this.serverProcess = transport.child;
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.connection = new Connection(transport.input, transport.output, {
      notification: (method, params) => this.dispatchNotification(method, params),
      request: (method, params, id) => this.dispatchServerRequest(method, params, id),
      inputEnded: () => this.onInputEnded(),
      writeFailed: (error) => this.onWriteFailed(error),
      closed: (error) => this.onClosed(error),
    });
    transport.child?.on("error", (error) => this.onSpawnError(error));
    transport.webSocket?.onProtocolError((error) =>
      this.connection.fail(new ConnectionError("malformed", `${transport.description}: ${error.message}`, { cause: error })),
    );
    transport.child?.on("close", (code, signal) => this.onProcessExit({ code, signal }));
  }

  /**
   * Spawns the server (`command` + `args`, default `tandem app-server`) and performs the handshake.
   * With `capabilities: { experimentalApi: true }` the client is typed by the experimental surface.
   */
  static spawn(
    options: ExperimentalOptions<SpawnOptions<ExperimentalProtocol>>,
  ): Promise<AppServerClient<ExperimentalProtocol>>;
  static spawn(options?: SpawnOptions): Promise<AppServerClient<StableProtocol>>;
  static async spawn(options: SpawnOptions = {}): Promise<AnyClient> {
    const [program, ...leading] = options.command ?? DEFAULT_COMMAND;
    if (program === undefined) throw new TypeError("spawn: `command` must not be empty");
    const args = [...leading, ...(options.args ?? [])];
    const child = spawnProcess(program, args, {
      cwd: options.cwd,
      env: mergeEnv(options.env),
      stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
    });
    const client = new AppServerClient<Protocol>({
      input: child.stdout as Readable,
      output: child.stdin as Writable,
      child,
      description: [program, ...args].join(" "),
    });
    return (await client.handshake(options)) as AnyClient;
  }

  /**
   * Attaches to a server over any stream pair (`readable` = the server's output, `writable` = its
   * input) and performs the handshake.
   */
  static connect(
    readable: Readable,
    writable: Writable,
    options: ExperimentalOptions<ConnectOptions<ExperimentalProtocol>>,
  ): Promise<AppServerClient<ExperimentalProtocol>>;
  static connect(readable: Readable, writable: Writable, options?: ConnectOptions): Promise<AppServerClient<StableProtocol>>;
  static async connect(
    readable: Readable,
    writable: Writable,
    options: ConnectOptions = {},
  ): Promise<AnyClient> {
    const client = new AppServerClient<Protocol>({
      input: readable,
      output: writable,
      child: undefined,
      description: "server",
    });
    return (await client.handshake(options)) as AnyClient;
  }

  /**
   * Connects to a running server's listener (`tandem app-server --listen ws://IP:PORT` or
   * `--listen unix://PATH`, or the daemon's socket) and performs the handshake. Both speak
   * WebSocket, one message per text frame; `token` is sent as `Authorization: Bearer <token>`.
   * Rejects with a `WebSocketRefusedError` (HTTP status and body, such as
   * `401 invalid websocket bearer token`), a `ConnectionError` with `reason: "connect"` when the
   * socket cannot be reached or the upgrade is not a WebSocket one, and a `TypeError` for a URL that
   * is neither `ws://` nor `unix://`. `initializeTimeoutMs` also bounds connecting and the upgrade.
   */
  static connectUrl(
    options: ExperimentalOptions<UrlConnectOptions<ExperimentalProtocol>>,
  ): Promise<AppServerClient<ExperimentalProtocol>>;
  static connectUrl(options: UrlConnectOptions): Promise<AppServerClient<StableProtocol>>;
  static async connectUrl(options: UrlConnectOptions): Promise<AnyClient> {
    const { url } = options;
    let webSocket: WebSocketStreams;
    try {
      webSocket = await openWebSocket(url, {
        token: options.token,
        headers: options.headers,
        maxMessageBytes: options.maxMessageBytes,
        timeoutMs: options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
      });
    } catch (error) {
      if (error instanceof WebSocketRefusedError || error instanceof TypeError) throw error;
      const reason = error instanceof WebSocketProtocolError ? error.message : `cannot connect to ${url}: ${messageOf(error)}`;
      throw new ConnectionError("connect", reason, { cause: error });
    }
    const client = new AppServerClient<Protocol>({
      input: webSocket.input,
      output: webSocket.output,
      child: undefined,
      description: url,
      webSocket,
    });
    return (await client.handshake(options)) as AnyClient;
  }

  /** The server's answer to `initialize` (user agent, home directory, platform). */
  get initializeResponse(): InitializeResponseOf<P> {
    if (this.initializeResult === undefined) throw new Error("initializeResponse read before the handshake finished");
    return this.initializeResult;
  }

  /**
   * Sends request `method` and resolves with its result. Rejects with an `AppServerError` for an
   * error reply, a `TimeoutError` after `timeoutMs`, the signal's reason when `signal` aborts, or a
   * `ConnectionError` when the connection ends first.
   */
  request<M extends RequestMethod<P>>(
    method: M,
    params: RequestParams<P, M>,
    options?: RequestOptions,
  ): Promise<RequestResult<P, M>> {
    return this.connection.request(method, params, options) as Promise<RequestResult<P, M>>;
  }

  /**
   * Experimental `index/query`: refreshes the project index of `repoRoot` (default: the server's
   * working directory) incrementally and resolves with ranked snippets, best first. `onProgress`
   * receives the refresh's `index/progress` notifications. Only on clients created with
   * `capabilities: { experimentalApi: true }`.
   */
  indexQuery(
    this: AppServerClient<ExperimentalProtocol>,
    params: RequestParams<ExperimentalProtocol, "index/query">,
    options: IndexRequestOptions = {},
  ): Promise<RequestResult<ExperimentalProtocol, "index/query">> {
    return this.withIndexProgress("index/query", params, options);
  }

  /**
   * Experimental `index/refresh`: warms (or with `forceFull` rebuilds) the project index;
   * `onProgress` receives its `index/progress` notifications.
   */
  indexRefresh(
    this: AppServerClient<ExperimentalProtocol>,
    params: RequestParams<ExperimentalProtocol, "index/refresh">,
    options: IndexRequestOptions = {},
  ): Promise<RequestResult<ExperimentalProtocol, "index/refresh">> {
    return this.withIndexProgress("index/refresh", params, options);
  }

  private async withIndexProgress<M extends "index/query" | "index/refresh">(
    this: AppServerClient<ExperimentalProtocol>,
    method: M,
    params: RequestParams<ExperimentalProtocol, M>,
    options: IndexRequestOptions,
  ): Promise<RequestResult<ExperimentalProtocol, M>> {
    const { onProgress, ...requestOptions } = options;
    const unsubscribe = onProgress === undefined ? () => {} : this.on("index/progress", onProgress);
    try {
      return await this.request(method, params, requestOptions);
    } finally {
      unsubscribe();
    }
  }

  /** Calls `handler` with the params of every `method` notification; returns an unsubscribe function. */
  on<M extends NotificationMethod<P>>(method: M, handler: (params: NotificationParams<P, M>) => void): () => void {
    let listeners = this.notificationListeners.get(method);
    if (listeners === undefined) {
      listeners = new Listeners<unknown>();
      this.notificationListeners.set(method, listeners);
    }
    return listeners.add(handler as (params: unknown) => void);
  }

  /**
   * Every notification from now on, as an async iterable; buffered from the moment of the call.
   * Iteration ends when the client closes and throws when the connection fails.
   * Stop with `break` to unsubscribe.
   */
  notifications(): AsyncIterableIterator<NotificationOf<P>> {
    const queue: AsyncQueue<NotificationOf<P>> = new AsyncQueue(() => this.sinks.delete(sink));
    const sink: NotificationSink = {
      push: (notification) => queue.push(notification as NotificationOf<P>),
      close: (error) => (error === undefined ? queue.end() : queue.fail(error)),
    };
    this.addSink(sink);
    return queue;
  }

  /**
   * Starts a turn on `threadId` with `input` (plus any other `turn/start` params) and follows it:
   * the result is an async iterable of the turn's notifications and has `completed`, which resolves
   * with the turn from `turn/completed`.
   */
  runTurn(threadId: string, input: UserInputOf<P>[], params: Partial<TurnStartParamsOf<P>> = {}): TurnRun<P> {
    return startTurnRun<P>(
      {
        subscribe: (sink) => this.addSink(sink),
        request: (method, turnParams) => this.connection.request(method, turnParams),
      },
      { ...params, threadId, input },
    );
  }

  /**
   * Answers `item/commandExecution/requestApproval` with `handler`'s result
   * (`{ decision: "accept" | "acceptForSession" | "decline" | "cancel" | … }`). Replaces an earlier
   * handler; the returned function removes this one.
   */
  onCommandApproval(handler: HandlerFor<P, "item/commandExecution/requestApproval">): () => void {
    return this.setServerRequestHandler("item/commandExecution/requestApproval", handler);
  }

  /** Answers `item/fileChange/requestApproval` with `handler`'s result (`{ decision }`). */
  onFileChangeApproval(handler: HandlerFor<P, "item/fileChange/requestApproval">): () => void {
    return this.setServerRequestHandler("item/fileChange/requestApproval", handler);
  }

  /**
   * Answers `item/tool/requestUserInput` with `handler`'s result (`{ answers: { [questionId]: { answers } } }`).
   * Experimental: only available on clients created with `capabilities: { experimentalApi: true }`.
   */
  onUserInput(handler: HandlerFor<P, "item/tool/requestUserInput">): () => void {
    return this.setServerRequestHandler("item/tool/requestUserInput", handler);
  }

  /**
   * Answers `tool/requestUserInput` (`{ toolCallId, questions: [{ text, options, isOther }] }`) with
   * `handler`'s result (`{ answers: [{ questionIndex, selected }] }`); throwing answers
   * `-32000` and the model sees the call fail. Sent instead of `item/tool/requestUserInput` when the
   * client connects with `capabilities: { experimentalApi: true, requestUserInputMethod: "tool/requestUserInput" }`.
   */
  onToolUserInput(handler: HandlerFor<P, "tool/requestUserInput">): () => void {
    return this.setServerRequestHandler("tool/requestUserInput", handler);
  }

  /**
   * Answers `agent/requestUserInput` (`{ toolCallId, prompt }`, free text, plan mode) with
   * `handler`'s result (`{ userInput }`); throwing cancels the question. Experimental.
   */
  onAgentUserInput(handler: HandlerFor<P, "agent/requestUserInput">): () => void {
    return this.setServerRequestHandler("agent/requestUserInput", handler);
  }

  /**
   * Answers `agent/askUserQuestion` (`{ toolCallId, questions: [{ type, text, options, allowOther }] }`)
   * with `handler`'s result (`{ answers: [{ questionIndex, selected }] }`); throwing cancels the
   * question. Experimental.
   */
  onAskUserQuestion(handler: HandlerFor<P, "agent/askUserQuestion">): () => void {
    return this.setServerRequestHandler("agent/askUserQuestion", handler);
  }

  /**
   * Answers `mcpServer/elicitation/request` with `handler`'s result
   * (`{ action: "accept" | "decline" | "cancel", content, _meta }`): an MCP server's question during a
   * tool call, or Tandem asking whether an MCP tool may run (`_meta["tandem/approvalKind"]`).
   */
  onMcpElicitation(handler: HandlerFor<P, "mcpServer/elicitation/request">): () => void {
    return this.setServerRequestHandler("mcpServer/elicitation/request", handler);
  }

  /**
   * Answers `item/tool/call` (`{ threadId, turnId, callId, namespace, tool, arguments }`): the model
   * called a tool this client declared with `thread/start`'s experimental `dynamicTools`. The
   * handler's result is the tool's output (`{ contentItems: [{ type: "inputText", text }], success }`),
   * which the model reads; throwing fails the call and the turn goes on.
   */
  onToolCall(handler: HandlerFor<P, "item/tool/call">): () => void {
    return this.setServerRequestHandler("item/tool/call", handler);
  }

  /**
   * Answers `item/permissions/requestApproval` (`{ threadId, turnId, itemId, cwd, reason, permissions }`):
   * the model's `request_permissions` tool (offered when the server's operator sets
   * `request_permissions_tool`) asks for network access or paths to read or write beyond the
   * thread's sandbox. The handler's result grants a subset (`{ permissions: { network?, fileSystem? },
   * scope: "turn" | "session" }`; `{ permissions: {} }` grants nothing); the server grants only what
   * was asked and what its operator's `[clients]` ceiling allows, and tells the model what took effect.
   */
  onPermissionsApproval(handler: HandlerFor<P, "item/permissions/requestApproval">): () => void {
    return this.setServerRequestHandler("item/permissions/requestApproval", handler);
  }

  /**
   * Answers server request `method` with `handler`'s result. Requests without a handler (unless
   * the client was made with `answerUnhandledServerRequests: false`), and handlers that throw, are
   * answered with a JSON-RPC error (`-32000`) so the turn never hangs.
   */
  onServerRequest<M extends ServerRequestMethod<P>>(method: M, handler: ServerRequestHandler<P, M>): () => void {
    return this.setServerRequestHandler(method, handler);
  }

  /**
   * Reports problems that no request's promise carries: the server exiting unexpectedly or writing
   * a malformed line (a `ConnectionError`), and exceptions thrown by notification handlers.
   * Without any error listener, handler exceptions are rethrown asynchronously (like an `EventEmitter`).
   */
  onError(listener: (error: Error) => void): () => void {
    return this.errorListeners.add(listener);
  }

  /** Calls `listener` once the server process exits (or, for `connect`, its output ends). */
  onExit(listener: (exit: ExitInfo) => void): () => void {
    return this.exitListeners.add(listener);
  }

  /**
   * Shuts down cleanly: closes the server's stdin, waits for it to exit, and sends SIGKILL after
   * `graceMs` (default 3000). Pending requests reject with a `ConnectionError` (`reason: "closed"`).
   * Over a listener (`connectUrl`) it runs the WebSocket closing handshake instead (dropping the
   * socket after `graceMs`); the server keeps running, and so do this connection's turns.
   */
  async close(options: CloseOptions = {}): Promise<ExitInfo> {
    const graceMs = options.graceMs ?? DEFAULT_CLOSE_GRACE_MS;
    this.closing = true;
    this.connection.fail(new ConnectionError("closed", "the client closed the connection"));
    this.connection.endOutput();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), graceMs)));
    const outcome = await Promise.race([this.exited, graceOver]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      const child = this.transport.child;
      if (child !== undefined) child.kill("SIGKILL");
      else this.transport.input.destroy();
    }
    return this.exited;
  }

  private async handshake(options: ConnectOptions<Protocol>): Promise<this> {
    this.answerUnhandled = options.answerUnhandledServerRequests ?? true;
    const params = {
      clientInfo: options.clientInfo ?? { name: CLIENT_NAME, title: null, version: CLIENT_VERSION },
      capabilities: options.capabilities ?? null,
    };
    try {
      const timeoutMs = options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
      this.initializeResult = (await this.connection.request("initialize", params, { timeoutMs })) as InitializeResponseOf<P>;
    } catch (error) {
      await this.close({ graceMs: 1_000 });
      throw error;
    }
    this.connection.notify("initialized", {});
    return this;
  }

  private setServerRequestHandler(method: string, handler: unknown): () => void {
    if (typeof handler !== "function") throw new TypeError(`handler for ${method} must be a function`);
    const stored = handler as StoredHandler;
    this.serverRequestHandlers.set(method, stored);
    return () => {
      if (this.serverRequestHandlers.get(method) === stored) this.serverRequestHandlers.delete(method);
    };
  }

  private addSink(sink: NotificationSink): () => void {
    const closedWith = this.connection.closedWith;
    if (closedWith !== undefined) {
      sink.close(closedWith.reason === "closed" ? undefined : closedWith);
      return () => {};
    }
    this.sinks.add(sink);
    return () => {
      this.sinks.delete(sink);
    };
  }

  private dispatchNotification(method: string, params: unknown): void {
    this.notificationListeners.get(method)?.emit(params, (error) => this.reportError(error));
    for (const sink of [...this.sinks]) sink.push({ method, params });
  }

  private async dispatchServerRequest(method: string, params: unknown, id: RequestId): Promise<unknown> {
    const handler = this.serverRequestHandlers.get(method);
    if (handler === undefined && !this.answerUnhandled) return NO_REPLY;
    if (handler === undefined) throw new Error(`no handler registered for ${method}`);
    try {
      return await handler(params, { id, method });
    } catch (error) {
      // The server gets the message as an error reply; an error listener, if any, gets the exception.
      if (this.errorListeners.size > 0) this.reportError(error);
      throw new Error(`${method} handler failed: ${messageOf(error)}`);
    }
  }

  private onInputEnded(): void {
    this.inputDrained = true;
    if (this.transport.child === undefined) {
      // A plain stream pair has no process: the end of its output is its exit.
      this.connection.fail(new ConnectionError("eof", `${this.transport.description} closed the connection`));
      this.onProcessExit({ code: null, signal: null });
    } else {
      this.finishIfExited();
    }
  }

  private onWriteFailed(error: Error): void {
    // A spawned server that died makes writes fail with EPIPE before its exit is seen; the exit
    // (with its code) is the better explanation, so only plain stream pairs fail here.
    if (this.transport.child === undefined) {
      this.connection.fail(new ConnectionError("write", `failed to write to server: ${error.message}`, { cause: error }));
    }
  }

  private onSpawnError(error: Error): void {
    this.connection.fail(
      new ConnectionError("spawn", `failed to start server \`${this.transport.description}\`: ${error.message}`, {
        cause: error,
      }),
    );
    // A process that never started emits no `close`; report the exit here instead.
    if (this.transport.child?.pid === undefined) this.onProcessExit({ code: null, signal: null });
  }

  private onProcessExit(exit: ExitInfo): void {
    this.exitInfo ??= exit;
    this.finishIfExited();
  }

  // The exit is reported once the process is gone and every line it wrote has been handled, so a
  // reply written just before exiting still resolves its request.
  private finishIfExited(): void {
    const exit = this.exitInfo;
    if (exit === undefined || this.exitReported) return;
    if (!this.inputDrained && this.connection.closedWith === undefined) return;
    this.exitReported = true;
    this.connection.fail(
      new ConnectionError("exit", exitMessage(exit.code, exit.signal), { exitCode: exit.code, signal: exit.signal }),
    );
    this.resolveExited(exit);
    this.exitListeners.emit(exit, (error) => this.reportError(error));
  }

  private onClosed(error: ConnectionError): void {
    const expected = error.reason === "closed" || (this.closing && error.reason !== "malformed");
    for (const sink of [...this.sinks]) sink.close(expected ? undefined : error);
    this.sinks.clear();
    if (expected) return;
    // The connection is unusable; ask a spawned server to shut down too.
    this.connection.endOutput();
    this.reportError(error);
  }

  private reportError(error: unknown): void {
    const asError = error instanceof Error ? error : new Error(String(error));
    if (this.errorListeners.size > 0) {
      this.errorListeners.emit(asError, (listenerError) => queueMicrotask(() => {
        throw listenerError;
      }));
      return;
    }
    // Connection failures already reach every pending request; only user exceptions are rethrown.
    if (!(asError instanceof ConnectionError)) {
      queueMicrotask(() => {
        throw asError;
      });
    }
  }
}

function mergeEnv(overrides: Record<string, string | undefined> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}
