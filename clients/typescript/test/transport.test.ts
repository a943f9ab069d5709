// Transport behaviour against an in-memory fake server: framing, ids, errors, timeouts, aborts,
// server requests and malformed output. These need no binary and control every byte.

import assert from "node:assert/strict";
import { test } from "node:test";
import { AppServerError, ConnectionError, LineDecoder, TimeoutError } from "../src/index.js";
import { FakeServer, within } from "./helpers.js";

test("LineDecoder joins partial chunks and split UTF-8 characters", () => {
  const decoder = new LineDecoder();
  const bytes = Buffer.from('{"a":"é"}\r\n\n{"b":2}\n{"c"', "utf8");
  const lines: string[] = [];
  // Feed one byte at a time: every boundary, including inside `é`, is exercised.
  for (const byte of bytes) lines.push(...decoder.push(Buffer.from([byte])));
  assert.deepEqual(lines, ['{"a":"é"}', '{"b":2}']);
  assert.deepEqual(decoder.end(), ['{"c"']);
});

test("the handshake sends initialize then initialized, with ids counting from 1", async () => {
  const server = new FakeServer();
  const { client, initialize } = await server.connect();
  assert.deepEqual(initialize, {
    id: 1,
    method: "initialize",
    params: { clientInfo: { name: "tandem-client-ts", title: null, version: "0.1.0" }, capabilities: null },
  });
  assert.deepEqual(await server.next(), { method: "initialized", params: {} });
  assert.equal(client.initializeResponse.userAgent, "fake/0.169.0");

  const listing = client.request("thread/loaded/list", {});
  const request = await server.next();
  assert.deepEqual(request, { id: 2, method: "thread/loaded/list", params: {} });
  // The reply arrives in fragments, glued to the start of a notification.
  server.writeRaw('{"id":2,"res');
  server.writeRaw('ult":{"data":["t1"],"nextCursor":null}}\n{"method":"warning","params":{"threadId":null,');
  server.writeRaw('"message":"careful"}}\n');
  assert.deepEqual(await listing, { data: ["t1"], nextCursor: null });
  await client.close({ graceMs: 0 });
});

test("notifications reach on() handlers and notifications() iterators in order", async () => {
  const server = new FakeServer();
  const { client } = await server.connect();
  const seen: string[] = [];
  const unsubscribe = client.on("warning", (params) => seen.push(params.message));
  const iterator = client.notifications();
  server.send({ method: "warning", params: { threadId: null, message: "one" }, emittedAtMs: 1 });
  server.send({ method: "thread/closed", params: { threadId: "t" } });
  assert.deepEqual((await iterator.next()).value, { method: "warning", params: { threadId: null, message: "one" } });
  assert.deepEqual((await iterator.next()).value, { method: "thread/closed", params: { threadId: "t" } });
  unsubscribe();
  server.send({ method: "warning", params: { threadId: null, message: "two" } });
  assert.equal((await iterator.next()).value?.method, "warning");
  assert.deepEqual(seen, ["one"]);
  await client.close({ graceMs: 0 });
  assert.equal((await iterator.next()).done, true);
});

test("an error reply rejects with AppServerError", async () => {
  const server = new FakeServer();
  const { client } = await server.connect();
  await server.next();
  const reading = client.request("thread/read", { threadId: "nope" });
  const { id } = await server.next();
  server.send({ error: { code: -32600, message: "thread not loaded: nope", data: { x: 1 } }, id });
  await assert.rejects(reading, (error: unknown) => {
    assert.ok(error instanceof AppServerError);
    assert.equal(error.code, -32600);
    assert.equal(error.message, "thread not loaded: nope");
    assert.deepEqual(error.data, { x: 1 });
    assert.equal(error.method, "thread/read");
    return true;
  });
  await client.close({ graceMs: 0 });
});

test("timeouts reject with TimeoutError and aborts with the signal's reason", async () => {
  const server = new FakeServer();
  const { client } = await server.connect();
  await assert.rejects(client.request("thread/loaded/list", {}, { timeoutMs: 20 }), (error: unknown) => {
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.message, "thread/loaded/list timed out after 20 ms");
    return true;
  });

  const controller = new AbortController();
  const aborted = client.request("thread/loaded/list", {}, { signal: controller.signal });
  const reason = new Error("user gave up");
  controller.abort(reason);
  await assert.rejects(aborted, (error: unknown) => error === reason);
  await assert.rejects(client.request("thread/loaded/list", {}, { signal: controller.signal }), (error) => error === reason);

  // Late replies to abandoned requests are ignored, and the connection keeps working.
  server.send({ id: 2, result: { data: [], nextCursor: null } });
  server.send({ id: 3, result: { data: [], nextCursor: null } });
  const listing = client.request("thread/loaded/list", {});
  server.send({ id: 4, result: { data: ["t"], nextCursor: null } });
  assert.deepEqual(await listing, { data: ["t"], nextCursor: null });
  await client.close({ graceMs: 0 });
});

test("server requests: handled, unhandled, and a handler that throws", async () => {
  const server = new FakeServer();
  const { client } = await server.connect();
  await server.next();
  client.onCommandApproval((params, request) => {
    assert.equal(request.method, "item/commandExecution/requestApproval");
    return { decision: params.command === "ls" ? "accept" : "decline" };
  });
  client.onFileChangeApproval(() => {
    throw new Error("disk is read-only");
  });
  const approval = { kind: "command", threadId: "t", turnId: "u", itemId: "call_1", startedAtMs: 1, environmentId: null };
  server.send({ id: 0, method: "item/commandExecution/requestApproval", params: { ...approval, command: "ls" } });
  assert.deepEqual(await server.next(), { id: 0, result: { decision: "accept" } });
  server.send({ id: 1, method: "item/fileChange/requestApproval", params: { threadId: "t", turnId: "u", itemId: "c", startedAtMs: 1, reason: null, grantRoot: null } });
  assert.deepEqual(await server.next(), {
    id: 1,
    error: { code: -32000, message: "item/fileChange/requestApproval handler failed: disk is read-only" },
  });
  server.send({ id: 2, method: "item/tool/requestUserInput", params: {} });
  assert.deepEqual(await server.next(), {
    id: 2,
    error: { code: -32000, message: "no handler registered for item/tool/requestUserInput" },
  });
  await client.close({ graceMs: 0 });
});

test("a malformed line rejects pending requests and fires onError", async () => {
  const server = new FakeServer();
  const { client } = await server.connect();
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  const exited = new Promise((resolve) => client.onExit(resolve));
  const pending = client.request("thread/loaded/list", {});
  server.writeRaw("this is not json\n");
  await assert.rejects(pending, (error: unknown) => {
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.reason, "malformed");
    assert.equal(error.message, "malformed line from server: this is not json");
    return true;
  });
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.message, "malformed line from server: this is not json");
  await assert.rejects(client.request("thread/loaded/list", {}), /malformed line from server/);
  server.toClient.end();
  assert.deepEqual(await within(1000, "onExit", exited), { code: null, signal: null });
});

test("the end of the server's output rejects pending requests", async () => {
  const server = new FakeServer();
  const { client } = await server.connect();
  const pending = client.request("thread/loaded/list", {});
  server.toClient.end();
  await assert.rejects(pending, { name: "ConnectionError", message: "server closed the connection" });
  assert.deepEqual(await client.exited, { code: null, signal: null });
});
