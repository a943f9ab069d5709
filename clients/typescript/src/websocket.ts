// A small RFC 6455 WebSocket client, enough to carry the protocol over `ws://` and `unix://`.
//
// The app-server's listeners send one JSON-RPC message per text frame, on TCP (`ws://HOST:PORT`)
// and on a Unix socket (`unix:///path`: the same HTTP upgrade, run over the socket). Node 20 has
// no global WebSocket, and the package has no runtime dependencies, so this file implements the
// client side: the upgrade (checking `Sec-WebSocket-Accept`), masked client frames, fragmented
// messages, ping/pong and the closing handshake. `openWebSocket` presents the connection as the
// stream pair the JSONL `Connection` reads and writes on stdio: each received text message becomes
// one line of `input`, and each line written to `output` becomes one text message.

import { createHash, randomBytes } from "node:crypto";
import { connect as netConnect, type Socket } from "node:net";
import { Readable, Writable } from "node:stream";
import { LineDecoder } from "./jsonl.js";

/** Largest message accepted from the server, in bytes (the stdio line limit of the other SDKs). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Largest HTTP response head accepted during the upgrade. */
const MAX_RESPONSE_HEAD_BYTES = 64 * 1024;

/** How much of a refusal's body is kept for the error. */
const MAX_REFUSAL_BODY_BYTES = 64 * 1024;

/** How long to wait for the server's close frame (or a refusal's body) before dropping the socket. */
const CLOSE_TIMEOUT_MS = 3_000;

/** The fixed GUID of RFC 6455 §1.3, from which `Sec-WebSocket-Accept` is derived. */
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

const enum Opcode {
  Continuation = 0x0,
  Text = 0x1,
  Binary = 0x2,
  Close = 0x8,
  Ping = 0x9,
  Pong = 0xa,
}

/**
 * A `ws://` or `unix://` listener refused the WebSocket upgrade with an HTTP status: Tandem answers
 * `401` for a missing or wrong bearer token (the body says which) and `403` for a refused `Origin`
 * or a Unix-socket peer of another user.
 */
export class WebSocketRefusedError extends Error {
  /** The URL the client connected to. */
  readonly url: string;
  /** The HTTP status code (`401`, `403`…). */
  readonly status: number;
  /** The status line's reason phrase (`Unauthorized`). */
  readonly statusText: string;
  /** The response body, which says why (`invalid websocket bearer token`). */
  readonly body: string;

  /** Describes the refusal of the upgrade to `url`. */
  constructor(url: string, status: number, statusText: string, body: string) {
    super(`${url}: the server refused the connection: HTTP ${status} ${statusText}${body === "" ? "" : `: ${body}`}`);
    this.name = "WebSocketRefusedError";
    this.url = url;
    this.status = status;
    this.statusText = statusText;
    this.body = body;
  }
}

/** The server broke the WebSocket protocol (or answered the upgrade with something else). */
export class WebSocketProtocolError extends Error {
  /** Describes the violation. */
  constructor(message: string) {
    super(message);
    this.name = "WebSocketProtocolError";
  }
}

/** Where a listener is. */
export interface Endpoint {
  /** The URL as given. */
  url: string;
  /** The `Host` header (`localhost` for a Unix socket). */
  host: string;
  /** The TCP host and port, for `ws://`. */
  tcp?: { host: string; port: number };
  /** The socket path, for `unix://`. */
  socketPath?: string;
  /** The request target of the upgrade (`/` unless the URL names a path). */
  resource: string;
}

/** Parses `ws://HOST:PORT[/path]` or `unix:///absolute/path`; throws a `TypeError` otherwise. */
export function parseEndpoint(url: string): Endpoint {
  if (url.startsWith("unix://")) {
    const socketPath = decodeURIComponent(url.slice("unix://".length));
    if (socketPath === "") throw new TypeError(`${url}: a unix:// URL needs the socket path (unix:///path/to.sock)`);
    return { url, host: "localhost", socketPath, resource: "/" };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${url}: not a URL (expected ws://HOST:PORT or unix:///path)`);
  }
  if (parsed.protocol !== "ws:") {
    throw new TypeError(`${url}: unsupported URL scheme (expected ws://HOST:PORT or unix:///path)`);
  }
  if (parsed.hostname === "") throw new TypeError(`${url}: a ws:// URL needs a host`);
  const port = parsed.port === "" ? 80 : Number(parsed.port);
  // `URL` keeps the brackets of an IPv6 host; `net.connect` wants the bare address.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  return { url, host: parsed.host, tcp: { host, port }, resource: `${parsed.pathname}${parsed.search}` || "/" };
}

/** Options of {@link openWebSocket}. */
export interface WebSocketOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Extra headers for the upgrade request. */
  headers?: Record<string, string>;
  /** Largest message accepted from the server (default 64 MiB); a larger one fails the connection. */
  maxMessageBytes?: number;
  /** Give up connecting and upgrading after this many milliseconds (default: no limit). */
  timeoutMs?: number;
}

/** An upgraded connection, as the stream pair the JSONL connection reads and writes. */
export interface WebSocketStreams {
  /** The server's messages, one line each. */
  input: Readable;
  /** Lines written here are sent as one text message each; ending it starts the closing handshake. */
  output: Writable;
  /** Called when the server breaks the protocol (the connection is then dropped). */
  onProtocolError(listener: (error: WebSocketProtocolError) => void): void;
}

/**
 * Connects to `url`, runs the upgrade, and resolves with the connection's streams. Rejects with a
 * `WebSocketRefusedError` (an HTTP status other than 101), a `WebSocketProtocolError` (not a valid
 * upgrade response), or the socket's error (`ECONNREFUSED`, `ENOENT`…).
 */
export async function openWebSocket(url: string, options: WebSocketOptions = {}): Promise<WebSocketStreams> {
  const endpoint = parseEndpoint(url);
  const socket =
    endpoint.socketPath !== undefined
      ? netConnect({ path: endpoint.socketPath })
      : netConnect({ host: endpoint.tcp?.host ?? "", port: endpoint.tcp?.port ?? 80 });
  const { timeoutMs } = options;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => socket.destroy(new Error(`no WebSocket upgrade within ${timeoutMs} ms`)), timeoutMs);
  try {
    await connected(socket);
    const rest = await upgrade(endpoint, socket, options);
    return new WebSocketConnection(socket, rest, options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES).streams();
  } catch (error) {
    socket.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function connected(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once("connect", () => {
      socket.off("error", reject);
      socket.setNoDelay(true);
      resolve();
    });
    socket.once("error", reject);
  });
}

/** Sends the upgrade request and checks the answer; resolves with any bytes read past its head. */
function upgrade(endpoint: Endpoint, socket: Socket, options: WebSocketOptions): Promise<Buffer> {
  const key = randomBytes(16).toString("base64");
  const lines = [
    `GET ${endpoint.resource} HTTP/1.1`,
    `Host: ${endpoint.host}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${key}`,
    "Sec-WebSocket-Version: 13",
  ];
  if (options.token !== undefined) lines.push(`Authorization: Bearer ${options.token}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) lines.push(`${name}: ${value}`);
  socket.write(`${lines.join("\r\n")}\r\n\r\n`);

  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const cleanup = (): void => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", onError);
    };
    const fail = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onError = (error: Error): void => fail(error);
    const onEnd = (): void =>
      fail(new WebSocketProtocolError(`${endpoint.url}: the connection closed during the WebSocket upgrade`));
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) {
        if (received.length > MAX_RESPONSE_HEAD_BYTES) {
          fail(new WebSocketProtocolError(`${endpoint.url}: the upgrade response head is over ${MAX_RESPONSE_HEAD_BYTES} bytes`));
        }
        return;
      }
      cleanup();
      socket.pause();
      const head = parseHead(received.subarray(0, end).toString("latin1"));
      const rest = received.subarray(end + 4);
      if (head === undefined) {
        const statusLine = received.subarray(0, Math.min(end, 200)).toString("latin1");
        reject(new WebSocketProtocolError(`${endpoint.url}: not an HTTP response to the upgrade: ${JSON.stringify(statusLine)}`));
        return;
      }
      if (head.status !== 101) {
        void readBody(socket, head.headers, rest).then((body) =>
          reject(new WebSocketRefusedError(endpoint.url, head.status, head.statusText, body.trim())),
        );
        return;
      }
      const connection = (head.headers.get("connection") ?? "").split(",").map((token) => token.trim().toLowerCase());
      if ((head.headers.get("upgrade") ?? "").toLowerCase() !== "websocket" || !connection.includes("upgrade")) {
        reject(new WebSocketProtocolError(`${endpoint.url}: the 101 response does not upgrade to websocket`));
        return;
      }
      const expected = createHash("sha1").update(key + GUID).digest("base64");
      if (head.headers.get("sec-websocket-accept") !== expected) {
        reject(new WebSocketProtocolError(`${endpoint.url}: wrong Sec-WebSocket-Accept in the upgrade response`));
        return;
      }
      if ((head.headers.get("sec-websocket-extensions") ?? "") !== "") {
        reject(new WebSocketProtocolError(`${endpoint.url}: the server chose an extension the client did not offer`));
        return;
      }
      resolve(rest);
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("close", onEnd);
    socket.on("error", onError);
  });
}

interface ResponseHead {
  status: number;
  statusText: string;
  headers: Map<string, string>;
}

function parseHead(text: string): ResponseHead | undefined {
  const [statusLine = "", ...headerLines] = text.split("\r\n");
  const match = /^HTTP\/\d(?:\.\d)? (\d{3})(?: (.*))?$/.exec(statusLine);
  if (match === null) return undefined;
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(match[1]), statusText: match[2] ?? "", headers };
}

/** A refusal's body: its `Content-Length` (capped), or what arrives before the server closes. */
function readBody(socket: Socket, headers: Map<string, string>, start: Buffer): Promise<string> {
  const declared = Number(headers.get("content-length") ?? Number.NaN);
  const wanted = Number.isInteger(declared) ? Math.min(declared, MAX_REFUSAL_BODY_BYTES) : MAX_REFUSAL_BODY_BYTES;
  return new Promise((resolve) => {
    let body = start;
    const timer = setTimeout(() => finish(), CLOSE_TIMEOUT_MS);
    const finish = (): void => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", finish);
      socket.off("error", finish);
      socket.destroy();
      resolve(body.subarray(0, wanted).toString("utf8"));
    };
    const onData = (chunk: Buffer): void => {
      body = Buffer.concat([body, chunk]);
      if (body.length >= wanted) finish();
    };
    if (body.length >= wanted) return finish();
    socket.on("data", onData);
    socket.on("end", finish);
    socket.on("error", finish);
    socket.resume();
  });
}

/** The bytes received and not parsed yet, as a list of chunks (copied only when a frame needs them). */
class ByteQueue {
  private chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The first `count` bytes, without consuming them (`count` ≤ `length`). */
  peek(count: number): Buffer {
    const first = this.chunks[0];
    if (first !== undefined && first.length >= count) return first.subarray(0, count);
    return Buffer.concat(this.chunks, this.length).subarray(0, count);
  }

  /** Removes and returns the first `count` bytes (`count` ≤ `length`). */
  take(count: number): Buffer {
    const parts: Buffer[] = [];
    let missing = count;
    while (missing > 0) {
      const chunk = this.chunks[0];
      if (chunk === undefined) break;
      if (chunk.length <= missing) {
        parts.push(chunk);
        this.chunks.shift();
        missing -= chunk.length;
      } else {
        parts.push(chunk.subarray(0, missing));
        this.chunks[0] = chunk.subarray(missing);
        missing = 0;
      }
    }
    this.length -= count;
    return parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, count);
  }
}

class WebSocketConnection {
  private readonly received = new ByteQueue();
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly protocolErrorListeners: ((error: WebSocketProtocolError) => void)[] = [];
  private protocolError: WebSocketProtocolError | undefined;
  private readonly utf8 = new TextDecoder("utf-8", { fatal: true });
  private message: { opcode: Opcode; parts: Buffer[]; size: number } | undefined;
  private closeSent = false;
  private ended = false;
  private closeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Socket,
    rest: Buffer,
    private readonly maxMessageBytes: number,
  ) {
    this.input = new Readable({
      read: () => socket.resume(),
      destroy: (error, callback) => {
        this.drop();
        callback(error);
      },
    });
    const lines = new LineDecoder();
    this.output = new Writable({
      write: (chunk: Buffer | string, _encoding, callback) => {
        if (this.closeSent || socket.destroyed) {
          callback(new Error("the WebSocket is closed"));
          return;
        }
        let flushed = true;
        for (const line of lines.push(chunk)) flushed = socket.write(frame(Opcode.Text, Buffer.from(line, "utf8")));
        if (flushed) callback();
        else socket.once("drain", () => callback());
      },
      final: (callback) => {
        this.close(1000);
        callback();
      },
    });
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("end", () => this.end());
    socket.on("close", () => this.end());
    // A reset socket ends the input like a closed one; the client reports the end.
    socket.on("error", () => this.end());
    this.receive(rest);
    socket.resume();
  }

  streams(): WebSocketStreams {
    return {
      input: this.input,
      output: this.output,
      onProtocolError: (listener) => {
        if (this.protocolError !== undefined) listener(this.protocolError);
        else this.protocolErrorListeners.push(listener);
      },
    };
  }

  private receive(chunk: Buffer): void {
    this.received.push(chunk);
    try {
      while (!this.ended && this.parseFrame()) {
        // Each successful parse consumed one frame.
      }
    } catch (error) {
      if (!(error instanceof WebSocketProtocolError)) throw error;
      this.protocolError = error;
      if (!this.closeSent) this.sendClose(error.message.includes("UTF-8") ? 1007 : 1002);
      for (const listener of this.protocolErrorListeners) listener(error);
      this.end();
    }
  }

  /** Parses and handles one frame if it has fully arrived; returns whether it did. */
  private parseFrame(): boolean {
    if (this.received.length < 2) return false;
    const [first = 0, second = 0] = this.received.peek(2);
    const fin = (first & 0x80) !== 0;
    const opcode = (first & 0x0f) as Opcode;
    if ((first & 0x70) !== 0) throw new WebSocketProtocolError("the server set reserved bits (no extension was negotiated)");
    if ((second & 0x80) !== 0) throw new WebSocketProtocolError("the server sent a masked frame (servers must not mask)");
    let length = second & 0x7f;
    let headerLength = 2;
    if (length === 126) headerLength = 4;
    else if (length === 127) headerLength = 10;
    if (this.received.length < headerLength) return false;
    const header = this.received.peek(headerLength);
    if (length === 126) length = header.readUInt16BE(2);
    else if (length === 127) {
      const long = header.readBigUInt64BE(2);
      if (long > BigInt(this.maxMessageBytes)) throw this.tooLong();
      length = Number(long);
    }
    if (opcode >= 0x8 && (!fin || length > 125)) {
      throw new WebSocketProtocolError("the server sent a fragmented or over-long control frame");
    }
    if (length > this.maxMessageBytes) throw this.tooLong();
    if (this.received.length < headerLength + length) return false;
    this.received.take(headerLength);
    this.handleFrame(fin, opcode, this.received.take(length));
    return true;
  }

  private handleFrame(fin: boolean, opcode: Opcode, payload: Buffer): void {
    switch (opcode) {
      case Opcode.Close:
        return this.onClose(payload);
      case Opcode.Ping:
        if (!this.closeSent) this.socket.write(frame(Opcode.Pong, payload));
        return;
      case Opcode.Pong:
        return;
      case Opcode.Text:
      case Opcode.Binary:
        if (this.message !== undefined) throw new WebSocketProtocolError("the server started a message inside a fragmented one");
        this.message = { opcode, parts: [], size: 0 };
        break;
      case Opcode.Continuation:
        if (this.message === undefined) throw new WebSocketProtocolError("the server sent a continuation frame without a message");
        break;
      default:
        throw new WebSocketProtocolError(`the server sent unknown opcode 0x${(opcode as number).toString(16)}`);
    }
    const message = this.message;
    message.size += payload.length;
    if (message.size > this.maxMessageBytes) throw this.tooLong();
    message.parts.push(payload);
    if (!fin) return;
    this.message = undefined;
    // Binary messages are skipped, as the server skips them.
    if (message.opcode !== Opcode.Text) return;
    let text: string;
    try {
      text = this.utf8.decode(Buffer.concat(message.parts, message.size));
    } catch {
      throw new WebSocketProtocolError("the server sent a text message that is not UTF-8");
    }
    // JSON allows raw line breaks only as whitespace between tokens, so spaces keep the meaning
    // and make the message exactly one line.
    if (!this.input.push(`${text.replace(/[\r\n]/g, " ")}\n`)) this.socket.pause();
  }

  private onClose(payload: Buffer): void {
    if (!this.closeSent) {
      // Echo the status code (RFC 6455 §5.5.1); 1005 ("none") is never sent on the wire.
      this.sendClose(payload.length >= 2 ? payload.readUInt16BE(0) : 1000);
    }
    this.end();
  }

  private close(code: number): void {
    if (this.closeSent || this.ended) {
      this.drop();
      return;
    }
    this.sendClose(code);
    this.closeTimer = setTimeout(() => this.drop(), CLOSE_TIMEOUT_MS);
    this.closeTimer.unref();
  }

  private sendClose(code: number): void {
    this.closeSent = true;
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code);
    if (!this.socket.destroyed) this.socket.write(frame(Opcode.Close, payload));
  }

  private drop(): void {
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    this.socket.destroy();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    this.input.push(null);
    // Nothing more can be said on this connection: flush what was queued (a close frame), then
    // drop the socket if the server does not close it first.
    if (!this.socket.destroyed) {
      this.socket.end();
      setTimeout(() => this.socket.destroy(), CLOSE_TIMEOUT_MS).unref();
    }
  }

  private tooLong(): WebSocketProtocolError {
    return new WebSocketProtocolError(`the server sent a message over ${this.maxMessageBytes} bytes`);
  }
}

/** One final client frame, masked with a fresh key as RFC 6455 §5.3 requires of clients. */
function frame(opcode: Opcode, payload: Buffer): Buffer {
  const length = payload.length;
  const headerLength = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  const out = Buffer.alloc(headerLength + 4 + length);
  out[0] = 0x80 | opcode;
  if (length < 126) out[1] = 0x80 | length;
  else if (length < 0x10000) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(length, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = randomBytes(4);
  mask.copy(out, headerLength);
  const start = headerLength + 4;
  for (let index = 0; index < length; index++) out[start + index] = (payload[index] ?? 0) ^ (mask[index & 3] ?? 0);
  return out;
}
