// Errors the client rejects with. Each one says what went wrong in words a person can act on.

import type { JsonValue } from "./generated/serde_json/JsonValue.js";

/**
 * A JSON-RPC error reply from the server, such as `-32600` for a request the server refused.
 * See `docs/protocol.md` ("Error codes") for what each code means.
 */
export class AppServerError extends Error {
  /** The JSON-RPC error code (`-32600` request-level, `-32603` internal, `-32001` overloaded). */
  readonly code: number;
  /** Structured detail the server attached, if any. */
  readonly data: JsonValue | undefined;
  /** The request method that failed. */
  readonly method: string;

  /** Wraps the `error` member of a reply to `method`. */
  constructor(method: string, error: { code: number; message: string; data?: JsonValue }) {
    super(error.message);
    this.name = "AppServerError";
    this.code = error.code;
    this.data = error.data;
    this.method = method;
  }
}

/** A request got no reply within its `timeoutMs`; a late reply is ignored. */
export class TimeoutError extends Error {
  /** The request method that timed out. */
  readonly method: string;
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;

  /** Describes a `method` request that outlived `timeoutMs`. */
  constructor(method: string, timeoutMs: number) {
    super(`${method} timed out after ${timeoutMs} ms`);
    this.name = "TimeoutError";
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** Why a connection ended; see {@link ConnectionError}. */
export type ConnectionErrorReason =
  /** The server process could not be started. */
  | "spawn"
  /** The listener given to `connectUrl` could not be reached, or did not upgrade to WebSocket. */
  | "connect"
  /** The server process exited (or was killed) while the connection was open. */
  | "exit"
  /** The server's output ended without the process exiting (streams given to `connect`, a listener's socket). */
  | "eof"
  /**
   * The server wrote a line that is not a JSON-RPC message, or broke the WebSocket protocol; the
   * connection is no longer trusted.
   */
  | "malformed"
  /** Writing to the server failed. */
  | "write"
  /** The client closed the connection with `close()`. */
  | "closed";

/**
 * The connection to the server is gone: every pending request rejects with this, and so does every
 * request made afterwards. `message` reads like `server exited with code 1` or
 * `malformed line from server: …`.
 */
export class ConnectionError extends Error {
  /** What ended the connection. */
  readonly reason: ConnectionErrorReason;
  /** The server's exit code, when it exited. */
  readonly exitCode: number | null;
  /** The signal that killed the server, when one did. */
  readonly signal: NodeJS.Signals | null;

  /** Builds the error; `exitCode`/`signal` are only meaningful for `reason: "exit"`. */
  constructor(
    reason: ConnectionErrorReason,
    message: string,
    options: { exitCode?: number | null; signal?: NodeJS.Signals | null; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ConnectionError";
    this.reason = reason;
    this.exitCode = options.exitCode ?? null;
    this.signal = options.signal ?? null;
  }
}

/** The `message` of a {@link ConnectionError} for a server that exited with `code` or on `signal`. */
export function exitMessage(code: number | null, signal: NodeJS.Signals | null): string {
  if (code !== null) return `server exited with code ${code}`;
  if (signal !== null) return `server exited on signal ${signal}`;
  return "server exited";
}

/** Renders any thrown value as an error message. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
