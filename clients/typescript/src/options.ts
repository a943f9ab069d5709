// Options for `AppServerClient.spawn`, `AppServerClient.connectUrl` and `AppServerClient.connect`.

import type { ClientInfoOf, InitializeCapabilitiesOf, Protocol, StableProtocol } from "./protocol.js";

/** Options for the `initialize` handshake, shared by `spawn`, `connectUrl` and `connect`. */
export interface ConnectOptions<P extends Protocol = StableProtocol> {
  /** Who the client is; defaults to `{ name: "tandem-client-ts", version: <package version> }`. */
  clientInfo?: ClientInfoOf<P>;
  /**
   * Capabilities for `initialize`. `{ experimentalApi: true }` opts into the experimental surface,
   * and the returned client is then typed by `ExperimentalProtocol`.
   */
  capabilities?: InitializeCapabilitiesOf<P>;
  /** How long to wait for the `initialize` reply, in milliseconds (default 30 000). */
  initializeTimeoutMs?: number;
  /**
   * Whether a server request without a handler is answered with an error (default `true`). Set it
   * to `false` on a connection that only watches a thread others also subscribe to (over a
   * listener): the server asks every subscribed connection and takes the first answer, so an error
   * from the watcher would beat the approval of the connection that handles it.
   */
  answerUnhandledServerRequests?: boolean;
}

/** Options for spawning the server process. */
export interface SpawnOptions<P extends Protocol = StableProtocol> extends ConnectOptions<P> {
  /** The server command and its leading arguments (default `["tandem", "app-server"]`). */
  command?: string[];
  /** Extra arguments appended to `command`, for example `["-c", 'model_provider="demo"']`. */
  args?: string[];
  /** Environment variables, merged over `process.env` (a value of `undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  /** Working directory of the server; relative thread `cwd`s resolve against it. */
  cwd?: string;
  /** Where the server's stderr (its log) goes: inherited (default), ignored, or piped to `serverProcess.stderr`. */
  stderr?: "inherit" | "ignore" | "pipe";
}

/** Options for connecting to a running server's `ws://` or `unix://` listener. */
export interface UrlConnectOptions<P extends Protocol = StableProtocol> extends ConnectOptions<P> {
  /** `ws://HOST:PORT` or `unix:///path/to.sock`. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` (what the server's `--ws-token-file` holds); a Unix socket needs none. */
  token?: string;
  /** Extra headers for the upgrade request. */
  headers?: Record<string, string>;
  /** Largest message accepted from the server, in bytes (default 64 MiB); a larger one ends the connection. */
  maxMessageBytes?: number;
}

/** Options for {@link AppServerClient.close}. */
export interface CloseOptions {
  /** How long to wait for the server to exit after its stdin closes before SIGKILL (default 3000 ms). */
  graceMs?: number;
}

/** How the server process (or the connection) ended. */
export interface ExitInfo {
  /** The exit code, or `null` when killed by a signal or when the connection was a plain stream pair. */
  code: number | null;
  /** The signal that ended the process, if any. */
  signal: NodeJS.Signals | null;
}

/** The default server command. */
export const DEFAULT_COMMAND: readonly string[] = ["tandem", "app-server"];

/** The default `initialize` timeout in milliseconds. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;

/** The default grace period of `close()` in milliseconds. */
export const DEFAULT_CLOSE_GRACE_MS = 3_000;
