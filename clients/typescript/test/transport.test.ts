// Transport behaviour against the real binary: framing, error replies, timeouts, aborts, clean
// shutdown, and what happens when the server dies, cannot start, or writes something that is not
// JSON. Stopping the server with SIGSTOP makes "no reply yet" deterministic without any fake server.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AppServerClient,
  AppServerError,
  CLIENT_NAME,
  CLIENT_VERSION,
  ConnectionError,
  LineDecoder,
  TimeoutError,
} from "../src/index.js";
import { closeWithHome, demoHome, packageRoot, spawnOptions, spawnStable, tandemBin, within } from "./helpers.js";

test("LineDecoder joins partial chunks and split UTF-8 characters", () => {
  const decoder = new LineDecoder();
  const bytes = Buffer.from('{"a":"é"}\r\n\n{"b":2}\n{"c"', "utf8");
  const lines: string[] = [];
  // Feed one byte at a time: every boundary, including inside `é`, is exercised.
  for (const byte of bytes) lines.push(...decoder.push(Buffer.from([byte])));
  assert.deepEqual(lines, ['{"a":"é"}', '{"b":2}']);
  assert.deepEqual(decoder.end(), ['{"c"']);
});

test("an error reply rejects with AppServerError carrying code, message and method", { timeout: 20_000 }, async (t) => {
  const client = await spawnStable(t, demoHome(t));
  await assert.rejects(client.request("thread/read", { threadId: "nope", includeTurns: false }), (error: unknown) => {
    assert.ok(error instanceof AppServerError);
    assert.equal(error.code, -32600);
    assert.match(error.message, /^invalid thread id/);
    assert.equal(error.method, "thread/read");
    return true;
  });
  // The connection stays usable after an error reply.
  assert.deepEqual(await client.request("thread/loaded/list", {}), { data: [], nextCursor: null });
});

test("timeouts reject with TimeoutError, aborts with the signal's reason; late replies are ignored", { timeout: 20_000 }, async (t) => {
  const client = await spawnStable(t, demoHome(t));
  const server = client.serverProcess;
  assert.ok(server !== undefined);
  // A stopped server reads nothing and answers nothing until it is continued.
  server.kill("SIGSTOP");
  t.after(() => server.kill("SIGCONT"));
  await assert.rejects(client.request("thread/loaded/list", {}, { timeoutMs: 50 }), (error: unknown) => {
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.message, "thread/loaded/list timed out after 50 ms");
    assert.equal(error.method, "thread/loaded/list");
    return true;
  });

  const controller = new AbortController();
  const aborted = client.request("thread/loaded/list", {}, { signal: controller.signal });
  const reason = new Error("user gave up");
  controller.abort(reason);
  await assert.rejects(aborted, (error: unknown) => error === reason);
  // An already aborted signal rejects at once.
  await assert.rejects(client.request("thread/loaded/list", {}, { signal: controller.signal }), (error) => error === reason);

  // Continued, the server answers the two abandoned requests; those replies are dropped and the
  // next request gets its own reply.
  server.kill("SIGCONT");
  const models = await within(10_000, "model/list", client.request("model/list", {}));
  assert.ok(Array.isArray(models.data));
  assert.deepEqual(await client.request("thread/loaded/list", {}), { data: [], nextCursor: null });
});

test("a server killed mid-request rejects the pending request with a ConnectionError", { timeout: 20_000 }, async (t) => {
  const client = await spawnStable(t, demoHome(t));
  const server = client.serverProcess;
  assert.ok(server !== undefined);
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  const stream = client.notifications();
  // Stopped first, so the request is certainly still pending when the kill lands.
  server.kill("SIGSTOP");
  const pending = client.request("thread/list", {});
  server.kill("SIGKILL");
  await assert.rejects(within(10_000, "the rejection", pending), (error: unknown) => {
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.reason, "exit");
    assert.equal(error.message, "server exited on signal SIGKILL");
    assert.equal(error.signal, "SIGKILL");
    return true;
  });
  assert.deepEqual(await client.exited, { code: null, signal: "SIGKILL" });
  // Later requests fail the same way, the notification stream throws, and onError heard of it once.
  await assert.rejects(client.request("thread/list", {}), { name: "ConnectionError", reason: "exit" });
  await assert.rejects(stream.next(), { name: "ConnectionError", message: "server exited on signal SIGKILL" });
  assert.deepEqual(
    errors.map((error) => error.message),
    ["server exited on signal SIGKILL"],
  );
});

test("a server that exits during the handshake rejects spawn with its exit code", { timeout: 20_000 }, async (t) => {
  const home = demoHome(t);
  await assert.rejects(
    AppServerClient.spawn({ ...spawnOptions(home), args: ["--no-such-flag"] }),
    (error: unknown) => {
      assert.ok(error instanceof ConnectionError);
      assert.equal(error.reason, "exit");
      assert.equal(error.exitCode, 2);
      assert.equal(error.message, "server exited with code 2");
      return true;
    },
  );
});

test("a command that cannot be started rejects spawn with reason spawn", { timeout: 20_000 }, async (t) => {
  const home = demoHome(t);
  await assert.rejects(
    AppServerClient.spawn({ ...spawnOptions(home), command: [`${tandemBin}-does-not-exist`, "app-server"] }),
    (error: unknown) => {
      assert.ok(error instanceof ConnectionError);
      assert.equal(error.reason, "spawn");
      assert.match(error.message, /^failed to start server `.*tandem-does-not-exist app-server`: spawn .* ENOENT$/);
      return true;
    },
  );
});

test("a malformed line from the server fails the connection with a clear error", { timeout: 20_000 }, async (t) => {
  const home = demoHome(t);
  // The real server, except that its second reply (to the first request after the handshake)
  // is replaced by a line of garbage, so that request is certainly pending when it arrives.
  const script = '"$0" app-server | { IFS= read -r first; printf "%s\\n" "$first"; IFS= read -r second; echo "this is not json"; cat; }';
  const client = await AppServerClient.spawn({ ...spawnOptions(home), command: ["sh", "-c", script, tandemBin] });
  t.after(() => client.close({ graceMs: 500 }));
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  await assert.rejects(within(10_000, "the rejection", client.request("thread/loaded/list", {})), (error: unknown) => {
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.reason, "malformed");
    assert.equal(error.message, "malformed line from server: this is not json");
    return true;
  });
  assert.deepEqual(
    errors.map((error) => error.message),
    ["malformed line from server: this is not json"],
  );
});

test("close() ends stdin and the server exits 0; pending requests reject as closed", { timeout: 20_000 }, async (t) => {
  const client = await spawnStable(t, demoHome(t));
  const pending = client.request("thread/list", {});
  const closing = client.close();
  await assert.rejects(pending, { name: "ConnectionError", reason: "closed" });
  assert.deepEqual(await closing, { code: 0, signal: null });
  await assert.rejects(client.request("thread/list", {}), { name: "ConnectionError", reason: "closed" });
});

test("close() kills a server that does not exit within the grace period", { timeout: 20_000 }, async (t) => {
  const client = await spawnStable(t, demoHome(t));
  client.serverProcess?.kill("SIGSTOP");
  const started = Date.now();
  const exit = await client.close({ graceMs: 200 });
  assert.deepEqual(exit, { code: null, signal: "SIGKILL" });
  assert.ok(Date.now() - started >= 150, "killed before the grace period ended");
});

test("connect() attaches to a server started elsewhere; the end of its output ends the connection", { timeout: 20_000 }, async (t) => {
  const home = demoHome(t);
  const child = spawn(tandemBin, ["app-server"], {
    env: { ...process.env, TANDEM_HOME: home.home },
    cwd: home.workspace,
    stdio: ["pipe", "pipe", "ignore"],
  });
  t.after(() => child.kill("SIGKILL"));
  const client = await AppServerClient.connect(child.stdout, child.stdin, {
    clientInfo: { name: "attached", title: null, version: "1.0.0" },
  });
  assert.match(client.initializeResponse.userAgent, /^attached\/0\.169\.0 /);
  assert.equal(client.serverProcess, undefined);
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  assert.equal(thread.cwd, home.workspace);

  // The process is not the client's: when its output ends, pending requests fail with reason "eof".
  child.kill("SIGSTOP");
  const pending = client.request("thread/list", {});
  child.kill("SIGKILL");
  await assert.rejects(within(10_000, "the rejection", pending), {
    name: "ConnectionError",
    reason: "eof",
    message: "server closed the connection",
  });
  assert.deepEqual(await client.exited, { code: null, signal: null });
});

test("the default clientInfo names this package and its package.json version", { timeout: 20_000 }, async (t) => {
  const home = demoHome(t);
  const { clientInfo: _, ...options } = spawnOptions(home);
  const client = closeWithHome(t, home, await AppServerClient.spawn(options));
  const manifest = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string };
  assert.equal(CLIENT_VERSION, manifest.version);
  // The server's user agent starts with the client name and ends with its name and version.
  assert.match(client.initializeResponse.userAgent, new RegExp(`^${CLIENT_NAME}/0\\.169\\.0 `));
  assert.ok(client.initializeResponse.userAgent.endsWith(`(${CLIENT_NAME}; ${manifest.version})`), client.initializeResponse.userAgent);
});
