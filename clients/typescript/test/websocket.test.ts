// The WebSocket client's framing (RFC 6455) against a scripted peer: what the real server seldom
// sends (fragments, pings, long lengths, protocol violations) and what the client must send
// (masked frames, the close echo). The server side here is a few lines of framing, not a model of
// Tandem.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type AddressInfo, type Socket, createServer } from "node:net";
import { once } from "node:events";
import { test, type TestContext } from "node:test";
import { AppServerClient, ConnectionError, WebSocketProtocolError } from "../src/index.js";
import { type WebSocketStreams, openWebSocket } from "../src/websocket.js";
import { within } from "./helpers.js";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** One frame as a server sends it (unmasked unless asked). */
function serverFrame(opcode: number, payload: Buffer | string, options: { fin?: boolean; masked?: boolean } = {}): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  const fin = options.fin ?? true;
  const maskBit = options.masked === true ? 0x80 : 0;
  let head: Buffer;
  if (body.length < 126) head = Buffer.from([(fin ? 0x80 : 0) | opcode, maskBit | body.length]);
  else if (body.length < 0x10000) {
    head = Buffer.alloc(4);
    head[0] = (fin ? 0x80 : 0) | opcode;
    head[1] = maskBit | 126;
    head.writeUInt16BE(body.length, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = (fin ? 0x80 : 0) | opcode;
    head[1] = maskBit | 127;
    head.writeBigUInt64BE(BigInt(body.length), 2);
  }
  return Buffer.concat([head, options.masked === true ? Buffer.alloc(4) : Buffer.alloc(0), body]);
}

/** Reads what a socket receives, frame by frame, as the server side of the scripted peer. */
class PeerReader {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | undefined;

  constructor(socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
  }

  async bytes(count: number): Promise<Buffer> {
    while (this.buffered.length < count) await new Promise<void>((resolve) => (this.waiting = resolve));
    const out = this.buffered.subarray(0, count);
    this.buffered = this.buffered.subarray(count);
    return out;
  }

  async head(): Promise<string> {
    while (!this.buffered.includes("\r\n\r\n")) await new Promise<void>((resolve) => (this.waiting = resolve));
    return (await this.bytes(this.buffered.indexOf("\r\n\r\n") + 4)).toString("latin1");
  }

  /** One client frame, asserted final and masked, unmasked. */
  async frame(): Promise<{ opcode: number; payload: Buffer }> {
    const [first = 0, second = 0] = await this.bytes(2);
    assert.ok((first & 0x80) !== 0, "client frames are final");
    assert.ok((second & 0x80) !== 0, "client frames are masked");
    let length = second & 0x7f;
    if (length === 126) length = (await this.bytes(2)).readUInt16BE(0);
    else if (length === 127) length = Number((await this.bytes(8)).readBigUInt64BE(0));
    const mask = await this.bytes(4);
    const payload = Buffer.from(await this.bytes(length));
    for (let index = 0; index < payload.length; index++) payload[index] = (payload[index] ?? 0) ^ (mask[index & 3] ?? 0);
    return { opcode: first & 0x0f, payload };
  }
}

/** Answers the upgrade with 101 and the right (or the given) Sec-WebSocket-Accept. */
async function accept(socket: Socket, reader: PeerReader, acceptKey?: string): Promise<void> {
  const head = await reader.head();
  const key = /sec-websocket-key:\s*(\S+)/i.exec(head)?.[1] ?? "";
  const expected = createHash("sha1").update(key + GUID).digest("base64");
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${acceptKey ?? expected}\r\n\r\n`,
  );
}

/** Starts a TCP server running `script` for its one connection; resolves with its URL and the script's end. */
async function peer(
  t: TestContext,
  script: (socket: Socket, reader: PeerReader) => Promise<void>,
): Promise<{ url: string; done: Promise<void> }> {
  let finish!: (result: Promise<void>) => void;
  const done = new Promise<Promise<void>>((resolve) => (finish = resolve)).then((result) => result);
  const server = createServer((socket) => {
    finish(script(socket, new PeerReader(socket)).finally(() => socket.end()));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, done };
}

/** The lines the client's input yields until it ends. */
async function readAll(streams: WebSocketStreams): Promise<string[]> {
  const lines: string[] = [];
  let text = "";
  for await (const chunk of streams.input) text += String(chunk);
  for (const line of text.split("\n")) if (line !== "") lines.push(line);
  return lines;
}

test("fragments, pings, binary messages, 16- and 64-bit lengths, masked client frames, the close echo", { timeout: 10_000 }, async (t) => {
  const long = "x".repeat(70_000);
  const medium = "y".repeat(300);
  const big = JSON.stringify({ big: "z".repeat(70_000) });
  const received: { opcode: number; payload: Buffer }[] = [];
  const { url, done } = await peer(t, async (socket, reader) => {
    await accept(socket, reader);
    socket.write(serverFrame(0x1, '{"method":"a",', { fin: false }));
    socket.write(serverFrame(0x9, "are you there"));
    socket.write(serverFrame(0x0, '\n"params":', { fin: false }));
    socket.write(serverFrame(0x0, '{"text":"é"}}'));
    socket.write(serverFrame(0x2, "binary is skipped"));
    socket.write(serverFrame(0x1, JSON.stringify({ long })));
    socket.write(serverFrame(0x1, JSON.stringify({ medium })));
    for (let count = 0; count < 3; count++) received.push(await reader.frame());
    const closeFrame = Buffer.concat([Buffer.from([0x03, 0xe8]), Buffer.from("bye")]);
    socket.write(serverFrame(0x8, closeFrame));
    received.push(await reader.frame());
  });
  const streams = await within(5_000, "the upgrade", openWebSocket(url));
  streams.output.write(`{"id":1}\n${big}\n`);
  const lines = await within(5_000, "the input's end", readAll(streams));
  await within(5_000, "the peer", done);

  assert.deepEqual(lines.map((line) => JSON.parse(line) as unknown), [
    { method: "a", params: { text: "é" } },
    { long },
    { medium },
  ]);
  assert.deepEqual(
    received.map(({ opcode, payload }) => [opcode, opcode === 0x8 ? payload.readUInt16BE(0) : payload.toString("utf8")]),
    [
      [0xa, "are you there"],
      [0x1, '{"id":1}'],
      [0x1, big],
      [0x8, 1000],
    ],
  );
});

const violations: [string, Buffer, RegExp, number][] = [
  ["a masked frame", serverFrame(0x1, "{}", { masked: true }), /masked frame/, 1002],
  ["a continuation without a message", serverFrame(0x0, "{}"), /continuation frame without a message/, 1002],
  ["a message inside a fragmented one", Buffer.concat([serverFrame(0x1, "{", { fin: false }), serverFrame(0x1, "}")]), /inside a fragmented one/, 1002],
  ["a fragmented ping", serverFrame(0x9, "p", { fin: false }), /fragmented or over-long control frame/, 1002],
  ["an over-long message", serverFrame(0x1, "x".repeat(2000)), /over 1000 bytes/, 1002],
  ["an over-long fragmented message", Buffer.concat([serverFrame(0x1, "x".repeat(600), { fin: false }), serverFrame(0x0, "x".repeat(600))]), /over 1000 bytes/, 1002],
  ["reserved bits", Buffer.concat([Buffer.from([0xc1, 0x02]), Buffer.from("{}")]), /reserved bits/, 1002],
  ["text that is not UTF-8", serverFrame(0x1, Buffer.from([0x22, 0xff, 0x22])), /not UTF-8/, 1007],
];

for (const [name, frames, message, code] of violations) {
  test(`a protocol violation (${name}) closes with ${code} and reports the error`, { timeout: 10_000 }, async (t) => {
    let close: { opcode: number; payload: Buffer } | undefined;
    const { url, done } = await peer(t, async (socket, reader) => {
      await accept(socket, reader);
      socket.write(frames);
      close = await reader.frame();
    });
    const streams = await within(5_000, "the upgrade", openWebSocket(url, { maxMessageBytes: 1000 }));
    const errors: WebSocketProtocolError[] = [];
    streams.onProtocolError((error) => errors.push(error));
    await within(5_000, "the input's end", readAll(streams));
    await within(5_000, "the peer", done);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? "", message);
    assert.deepEqual([close?.opcode, close?.payload.readUInt16BE(0)], [0x8, code]);
  });
}

test("a wrong Sec-WebSocket-Accept is refused", { timeout: 10_000 }, async (t) => {
  const { url } = await peer(t, async (socket, reader) => {
    await accept(socket, reader, "d3Jvbmc=");
  });
  await assert.rejects(openWebSocket(url), (error: unknown) => {
    assert.ok(error instanceof WebSocketProtocolError);
    assert.match(error.message, /wrong Sec-WebSocket-Accept/);
    return true;
  });
  // Through the client, the same failure is a ConnectionError with reason "connect".
  await assert.rejects(AppServerClient.connectUrl({ url }), (error: unknown) => {
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.reason, "connect");
    assert.match(error.message, /wrong Sec-WebSocket-Accept/);
    return true;
  });
});
