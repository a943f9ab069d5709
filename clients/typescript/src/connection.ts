// JSON-RPC lite over a stream pair: the untyped layer under `AppServerClient`.
//
// It owns request-id allocation, the pending-request map, framing, and the dispatch of incoming
// lines. It knows nothing about methods; the typed client sits on top.

import type { Readable, Writable } from "node:stream";
import { AppServerError, ConnectionError, TimeoutError, messageOf } from "./errors.js";
import type { JsonValue } from "./generated/serde_json/JsonValue.js";
import { LineDecoder, encodeLine } from "./jsonl.js";

/** A request id as it appears on the wire. */
export type RequestId = number | string;

/** Per-request options for {@link Connection.request}. */
export interface RequestOptions {
  /** Reject with a `TimeoutError` when no reply arrives within this many milliseconds. */
  timeoutMs?: number;
  /** Reject with the signal's `reason` when it aborts; a late reply is then ignored. */
  signal?: AbortSignal;
}

/** The code the client answers unhandled or failed server requests with. */
export const SERVER_REQUEST_FAILED = -32000;

/** What a server-request hook resolves with to send no reply at all (another connection answers). */
export const NO_REPLY: unique symbol = Symbol("no reply");

/** What the connection hands upwards. */
export interface ConnectionHooks {
  /** A server notification arrived. */
  notification(method: string, params: unknown): void;
  /** A server request arrived; the returned promise's value (or error) becomes the reply, unless it is `NO_REPLY`. */
  request(method: string, params: unknown, id: RequestId): Promise<unknown>;
  /** The server's output ended; call `fail` on the connection when that is the end. */
  inputEnded(): void;
  /** Writing to the server failed. */
  writeFailed(error: Error): void;
  /** The connection failed or closed; pending requests have already been rejected with `error`. */
  closed(error: ConnectionError): void;
}

interface PendingRequest {
  method: string;
  resolve(result: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

/** One JSON-RPC lite connection over a readable (server output) and a writable (server input). */
export class Connection {
  private nextId = 1;
  private readonly pending = new Map<RequestId, PendingRequest>();
  private readonly decoder = new LineDecoder();
  private readonly lines: string[] = [];
  private draining = false;
  private inputDone = false;
  private inputEndReported = false;
  private failure: ConnectionError | undefined;

  /** Starts reading `input` at once; `hooks` receive everything that is not a reply. */
  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly hooks: ConnectionHooks,
  ) {
    input.on("data", (chunk: Buffer | string) => this.receive(this.decoder.push(chunk)));
    input.on("end", () => this.endOfInput());
    input.on("close", () => this.endOfInput());
    input.on("error", () => this.endOfInput());
    output.on("error", (error: Error) => this.hooks.writeFailed(error));
  }

  /** The error that ended the connection, or `undefined` while it is open. */
  get closedWith(): ConnectionError | undefined {
    return this.failure;
  }

  /** Sends a request and resolves with its `result`, or rejects (see {@link RequestOptions}). */
  request(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    const { signal, timeoutMs } = options;
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        this.pending.get(id)?.cleanup();
        reject(signal?.reason);
      };
      const entry: PendingRequest = {
        method,
        resolve,
        reject,
        cleanup: () => {
          this.pending.delete(id);
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
      };
      this.pending.set(id, entry);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          entry.cleanup();
          reject(new TimeoutError(method, timeoutMs));
        }, timeoutMs);
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.write({ id, method, params });
    });
  }

  /** Sends a notification. Dropped silently once the connection has ended. */
  notify(method: string, params: unknown): void {
    if (this.failure === undefined) this.write({ method, params });
  }

  /**
   * Ends the connection with `error`: rejects every pending request with it, and every later one.
   * Only the first call counts.
   */
  fail(error: ConnectionError): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    for (const entry of [...this.pending.values()]) {
      entry.cleanup();
      entry.reject(error);
    }
    this.hooks.closed(error);
  }

  /** Closes the server's input (its stdin), which asks a stdio server to shut down. */
  endOutput(): void {
    if (!this.output.writableEnded) this.output.end();
  }

  private write(message: object): void {
    if (this.output.writableEnded || this.output.destroyed) {
      this.hooks.writeFailed(new Error("the server's input is closed"));
      return;
    }
    this.output.write(encodeLine(message));
  }

  private receive(lines: string[]): void {
    this.lines.push(...lines);
    void this.drain();
  }

  private endOfInput(): void {
    if (this.inputDone) return;
    this.inputDone = true;
    this.receive(this.decoder.end());
  }

  // Lines are handled one per macrotask, so that code awaiting a reply runs before the lines
  // after that reply: `await request(...)` followed by subscribing misses nothing.
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let line = this.lines.shift(); line !== undefined; line = this.lines.shift()) {
        if (this.failure !== undefined) break;
        this.handleLine(line);
        if (this.lines.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.draining = false;
    }
    // After a failure the rest is not read, but the end is still reported: for a stream pair or a
    // socket it is the moment the connection is over (`exited`).
    if (this.inputDone && (this.lines.length === 0 || this.failure !== undefined) && !this.inputEndReported) {
      this.inputEndReported = true;
      this.hooks.inputEnded();
    }
  }

  private handleLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (!isRecord(message)) return this.malformed(line);
    const { id, method } = message;
    const hasId = typeof id === "number" || typeof id === "string";
    if (typeof method === "string") {
      if (hasId) return this.answer(id, method, message.params);
      return this.hooks.notification(method, message.params);
    }
    if (hasId && "result" in message) return this.settle(id, { result: message.result });
    if (hasId && isErrorObject(message.error)) return this.settle(id, { error: message.error });
    this.malformed(line);
  }

  private settle(id: RequestId, reply: { result: unknown } | { error: RpcErrorObject }): void {
    const entry = this.pending.get(id);
    // A reply to a request that timed out or was aborted is ignored.
    if (entry === undefined) return;
    entry.cleanup();
    if ("error" in reply) entry.reject(new AppServerError(entry.method, reply.error));
    else entry.resolve(reply.result);
  }

  private answer(id: RequestId, method: string, params: unknown): void {
    let reply: Promise<unknown>;
    try {
      reply = this.hooks.request(method, params, id);
    } catch (error) {
      reply = Promise.reject(error);
    }
    reply.then(
      (result) => {
        if (result === NO_REPLY) return;
        if (this.failure === undefined) this.write({ id, result: result ?? null });
      },
      (error: unknown) => {
        if (this.failure === undefined) {
          this.write({ id, error: { code: SERVER_REQUEST_FAILED, message: messageOf(error) } });
        }
      },
    );
  }

  private malformed(line: string): void {
    const excerpt = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    this.fail(new ConnectionError("malformed", `malformed line from server: ${excerpt}`));
  }
}

interface RpcErrorObject {
  code: number;
  message: string;
  data?: JsonValue;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isErrorObject(value: unknown): value is RpcErrorObject {
  return isRecord(value) && typeof value.code === "number" && typeof value.message === "string";
}
