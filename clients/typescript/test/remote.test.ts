// The client over a running server's listeners (`--listen ws://` and `unix://`), against the real
// binary. Both listeners speak WebSocket; the client's API is the same as over stdio.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { NotificationOf, ThreadItem } from "../src/index.js";
import { AppServerClient, ConnectionError, WebSocketRefusedError, parseEndpoint } from "../src/index.js";
import { closeWithHome, demoHome, startListener, tandemBin, within } from "./helpers.js";

const clientInfo = { name: "tandem_client_tests", title: null, version: "0.0.0" };

test("ws:// with the token: a turn runs end to end with its approvals answered", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const listener = await startListener(t, home, "ws");
  assert.match(listener.url, /^ws:\/\/127\.0\.0\.1:\d+$/);
  const client = closeWithHome(t, home, await AppServerClient.connectUrl({ url: listener.url, token: listener.token, clientInfo }));
  assert.equal(client.serverProcess, undefined);
  assert.match(client.initializeResponse.userAgent, /^tandem_client_tests\//);
  const approvals: string[] = [];
  client.onCommandApproval(() => {
    approvals.push("command");
    return { decision: "accept" };
  });
  client.onFileChangeApproval(() => {
    approvals.push("fileChange");
    return { decision: "accept" };
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.deepEqual(approvals, ["command", "fileChange"]);
  const commands = (run.notifications as readonly NotificationOf[]).flatMap((notification) =>
    notification.method === "item/completed" && notification.params.item.type === "commandExecution"
      ? [notification.params.item as Extract<ThreadItem, { type: "commandExecution" }>]
      : [],
  );
  assert.equal(commands.length, 1);
  assert.equal(commands[0]?.status, "completed");
  assert.match(commands[0]?.aggregatedOutput ?? "", /^Linux /);
  assert.ok(existsSync(join(home.workspace, "tandem-demo.txt")));

  // Closing runs the closing handshake; the server keeps running and another client reads the thread.
  assert.deepEqual(await client.close(), { code: null, signal: null });
  const again = closeWithHome(t, home, await AppServerClient.connectUrl({ url: listener.url, token: listener.token }));
  const read = await again.request("thread/read", { threadId: thread.id, includeTurns: true });
  assert.deepEqual(
    read.thread.turns.map((readTurn) => readTurn.id),
    [turn.id],
  );
});

test("ws:// refuses a wrong or missing token with 401 and a refused Origin with 403", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const listener = await startListener(t, home, "ws");
  await assert.rejects(AppServerClient.connectUrl({ url: listener.url, token: "not-the-token-at-all" }), (error: unknown) => {
    assert.ok(error instanceof WebSocketRefusedError);
    assert.equal(error.status, 401);
    assert.equal(error.body, "invalid websocket bearer token");
    assert.equal(
      error.message,
      `${listener.url}: the server refused the connection: HTTP 401 Unauthorized: invalid websocket bearer token`,
    );
    return true;
  });
  await assert.rejects(AppServerClient.connectUrl({ url: listener.url }), (error: unknown) => {
    assert.ok(error instanceof WebSocketRefusedError);
    assert.deepEqual([error.status, error.body], [401, "missing websocket bearer token"]);
    return true;
  });
  await assert.rejects(
    AppServerClient.connectUrl({ url: listener.url, token: listener.token, headers: { Origin: "https://evil.example" } }),
    (error: unknown) => error instanceof WebSocketRefusedError && error.status === 403,
  );
});

test("unix:// runs a turn", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const listener = await startListener(t, home, "unix");
  assert.match(listener.url, /^unix:\/\/\//);
  const client = closeWithHome(t, home, await AppServerClient.connectUrl({ url: listener.url }));
  const { thread } = await client.request("thread/start", { cwd: home.workspace, approvalPolicy: "never" });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Why is the sky blue?" }]);
  let deltas = "";
  for await (const notification of run) {
    if (notification.method === "item/agentMessage/delta") deltas += notification.params.delta;
  }
  const turn = await within(20_000, "turn/completed", run.completed);
  assert.equal(turn.status, "completed");
  const messages = (run.notifications as readonly NotificationOf[]).flatMap((notification) =>
    notification.method === "item/completed" && notification.params.item.type === "agentMessage"
      ? [notification.params.item.text]
      : [],
  );
  assert.match(messages[0] ?? "", /You asked: “Why is the sky blue\?”/);
  assert.equal(deltas, messages.join(""));
});

test("two ws:// clients on one thread both see the turn's notifications", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const listener = await startListener(t, home, "ws");
  const first = closeWithHome(t, home, await AppServerClient.connectUrl({ url: listener.url, token: listener.token }));
  const second = closeWithHome(t, home, await AppServerClient.connectUrl({ url: listener.url, token: listener.token }));
  const { thread } = await first.request("thread/start", { cwd: home.workspace, approvalPolicy: "never" });
  // The second connection subscribes to the thread by resuming it.
  const watched = second.notifications();
  await second.request("thread/resume", { threadId: thread.id });
  const run = first.runTurn(thread.id, [{ type: "text", text: "Hello from the first client" }]);
  const turn = await within(20_000, "turn/completed", run.completed);
  const seen: NotificationOf[] = [];
  await within(20_000, "the second client's turn/completed", (async () => {
    for await (const notification of watched) {
      seen.push(notification);
      if (notification.method === "turn/completed") break;
    }
  })());

  const deltasOf = (notifications: readonly NotificationOf[]): string[] =>
    notifications.flatMap((notification) => (notification.method === "item/agentMessage/delta" ? [notification.params.delta] : []));
  const own = deltasOf(run.notifications as readonly NotificationOf[]);
  assert.ok(own.length > 0);
  assert.deepEqual(deltasOf(seen), own);
  const last = seen.at(-1);
  assert.ok(last?.method === "turn/completed");
  assert.equal(last.params.turn.id, turn.id);
  assert.ok(seen.some((notification) => notification.method === "turn/started"));
});

test("connectUrl: unreachable listeners and bad URLs", { timeout: 10_000 }, async (t) => {
  const home = demoHome(t);
  await assert.rejects(
    AppServerClient.connectUrl({ url: `unix://${join(home.home, "no-such.sock")}` }),
    (error: unknown) => error instanceof ConnectionError && error.reason === "connect" && /ENOENT/.test(error.message),
  );
  await assert.rejects(AppServerClient.connectUrl({ url: "http://127.0.0.1:1" }), TypeError);
  assert.deepEqual(parseEndpoint("ws://127.0.0.1:4500"), {
    url: "ws://127.0.0.1:4500",
    host: "127.0.0.1:4500",
    tcp: { host: "127.0.0.1", port: 4500 },
    resource: "/",
  });
  assert.equal(parseEndpoint("unix:///run/tandem.sock").socketPath, "/run/tandem.sock");
});

test("proxy --jsonl is spawned like a stdio server and reaches the listening server", { timeout: 30_000 }, async (t) => {
  // `tandem app-server proxy --jsonl` joins stdio to a running server's socket (the daemon's, or the
  // one `--sock` names): the client spawns it like a stdio server, and the turn runs there.
  const home = demoHome(t);
  const listener = await startListener(t, home, "unix");
  const socketPath = listener.url.slice("unix://".length);
  const client = closeWithHome(
    t,
    home,
    await AppServerClient.spawn({
      command: [tandemBin, "app-server", "proxy", "--jsonl", "--sock", socketPath],
      env: { TANDEM_HOME: home.home },
      stderr: "ignore",
    }),
  );
  const { thread } = await client.request("thread/start", { cwd: home.workspace, approvalPolicy: "never" });
  const turn = await within(
    20_000,
    "turn/completed",
    client.runTurn(thread.id, [{ type: "text", text: "Hello through the proxy" }]).completed,
  );
  assert.equal(turn.status, "completed");
  assert.deepEqual(await client.close(), { code: 0, signal: null });
  // The thread lives in the listening server, not in the proxy.
  const direct = closeWithHome(t, home, await AppServerClient.connectUrl({ url: listener.url }));
  const read = await direct.request("thread/read", { threadId: thread.id, includeTurns: false });
  assert.equal(read.thread.id, thread.id);
});

test("a watching connection leaves approvals to the one that handles them", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const listener = await startListener(t, home, "ws");
  const first = closeWithHome(t, home, await AppServerClient.connectUrl({ url: listener.url, token: listener.token }));
  const watcher = closeWithHome(
    t,
    home,
    await AppServerClient.connectUrl({ url: listener.url, token: listener.token, answerUnhandledServerRequests: false }),
  );
  first.onCommandApproval(() => ({ decision: "accept" }));
  first.onFileChangeApproval(() => ({ decision: "accept" }));
  const { thread } = await first.request("thread/start", { cwd: home.workspace });
  const watched = watcher.notifications();
  await watcher.request("thread/resume", { threadId: thread.id });
  const run = first.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  const turn = await within(20_000, "turn/completed", run.completed);
  const seen: string[] = [];
  await within(20_000, "the watcher's turn/completed", (async () => {
    for await (const notification of watched) {
      if (notification.method === "serverRequest/resolved" || notification.method === "turn/completed") seen.push(notification.method);
      if (notification.method === "turn/completed") break;
    }
  })());

  assert.equal(turn.status, "completed");
  const statuses = (run.notifications as readonly NotificationOf[]).flatMap((notification) =>
    notification.method === "item/completed" &&
    (notification.params.item.type === "commandExecution" || notification.params.item.type === "fileChange")
      ? [[notification.params.item.type, notification.params.item.status]]
      : [],
  );
  assert.deepEqual(statuses, [
    ["commandExecution", "completed"],
    ["fileChange", "completed"],
  ]);
  // The watcher is told when each request it saw is answered.
  assert.deepEqual(seen, ["serverRequest/resolved", "serverRequest/resolved", "turn/completed"]);
});

test("the server going away ends the connection with reason eof", { timeout: 20_000 }, async (t) => {
  const home = demoHome(t);
  const listener = await startListener(t, home, "ws");
  const client = closeWithHome(t, home, await AppServerClient.connectUrl({ url: listener.url, token: listener.token }));
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  listener.kill("SIGKILL");
  assert.deepEqual(await within(10_000, "the end of the connection", client.exited), { code: null, signal: null });
  await assert.rejects(client.request("thread/loaded/list", {}), (error: unknown) => {
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.reason, "eof");
    assert.equal(error.message, `${listener.url} closed the connection`);
    return true;
  });
  assert.equal(errors.length, 1);
});
