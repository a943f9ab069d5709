// JSON-RPC over the browser's own WebSocket, one message per text frame, as the listener speaks it.
//
// A browser cannot set `Authorization` on a WebSocket, so the page authenticates in its first
// frame: `{"type":"authenticate","token":"…"}`, which the listener accepts from the page's own
// origin only. A refusal closes the socket with code 1008 and the reason, which `onClose` reports.

import type { RequestId } from "./generated/RequestId.js";

/** A server request waiting for the page's answer. */
export interface ServerRequest {
  id: RequestId;
  method: string;
  params: unknown;
}

/** A notification from the server. */
export interface Notification {
  method: string;
  params: unknown;
}

/** An error response to one of the page's requests. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

/** One connection to the listener. */
export class Rpc {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  onNotification: (notification: Notification) => void = () => {};
  onRequest: (request: ServerRequest) => void = () => {};
  onClose: (code: number, reason: string) => void = () => {};

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", (event) => {
      const error = new Error(event.reason || `the connection closed (code ${event.code})`);
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
      this.onClose(event.code, event.reason);
    });
  }

  /** Opens the WebSocket at `url` and sends the token as the first message. */
  static open(url: string, token: string): Promise<Rpc> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      const refused = (event: CloseEvent) =>
        reject(new Error(event.reason || "the server refused the connection (is this page's origin allowed?)"));
      socket.addEventListener("close", refused, { once: true });
      socket.addEventListener(
        "open",
        () => {
          socket.removeEventListener("close", refused);
          socket.send(JSON.stringify({ type: "authenticate", token }));
          resolve(new Rpc(socket));
        },
        { once: true },
      );
    });
  }

  /** Sends a request and waits for its result. */
  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (result) => resolve(result as T), reject });
      this.send({ id, method, params });
    });
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  /** Answers a server request. */
  respond(id: RequestId, result: unknown): void {
    this.send({ id, result });
  }

  /** Answers a server request with an error. */
  respondError(id: RequestId, message: string): void {
    this.send({ id, error: { code: -32000, message } });
  }

  /** Whether the socket is open. */
  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  private send(message: unknown): void {
    if (this.open) this.socket.send(JSON.stringify(message));
  }

  private receive(data: unknown): void {
    if (typeof data !== "string") return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    const id = message.id as RequestId | undefined;
    const method = message.method;
    if (typeof method === "string") {
      if (id === undefined) this.onNotification({ method, params: message.params });
      else this.onRequest({ id, method, params: message.params });
      return;
    }
    if (id === undefined) return;
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    const error = message.error as { code?: number; message?: string } | undefined;
    if (error !== undefined) pending.reject(new RpcError(error.code ?? 0, error.message ?? "request failed"));
    else pending.resolve(message.result);
  }
}
