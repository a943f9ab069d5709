// A streamed turn against the real binary with the demo provider.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { NotificationOf } from "../src/index.js";
import { demoHome, spawnStable, within } from "./helpers.js";

test("handshake: initialize result and the Codex protocol version in the user agent", { timeout: 20_000 }, async (t) => {
  const client = await spawnStable(t, demoHome(t));
  assert.match(client.initializeResponse.userAgent, /^tandem_client_tests\/0\.169\.0 /);
  assert.equal(client.initializeResponse.platformFamily, "unix");
  const exit = await client.close();
  assert.deepEqual(exit, { code: 0, signal: null });
});

test("streamed turn: deltas arrive before turn/completed, which carries the final agent message", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  // Tool stages of the demo ask for approvals; accept them so the turn runs straight through.
  client.onCommandApproval(() => ({ decision: "accept" }));
  client.onFileChangeApproval(() => ({ decision: "accept" }));
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const viaOn: string[] = [];
  client.on("item/agentMessage/delta", (params) => viaOn.push(params.delta));

  const run = client.runTurn(thread.id, [{ type: "text", text: "Say hello" }]);
  const seen: NotificationOf[] = [];
  for await (const notification of run) seen.push(notification);
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.equal(turn.id, (await run.started).id);
  const methods = seen.map((notification) => notification.method);
  assert.equal(methods.at(-1), "turn/completed");
  assert.ok(methods.includes("turn/started"), `no turn/started in ${methods.join(", ")}`);
  const firstDelta = methods.indexOf("item/agentMessage/delta");
  assert.ok(firstDelta >= 0, `no item/agentMessage/delta in ${methods.join(", ")}`);
  assert.ok(firstDelta < methods.indexOf("turn/completed"));

  // The completed turn's final agentMessage is exactly what its deltas streamed.
  const final = turn.items.findLast((item) => item.type === "agentMessage");
  assert.ok(final !== undefined && final.type === "agentMessage", "turn/completed has no agentMessage");
  const streamed = seen
    .flatMap((notification) =>
      notification.method === "item/agentMessage/delta" && notification.params.itemId === final.id
        ? [notification.params.delta]
        : [],
    )
    .join("");
  assert.equal(streamed, final.text);
  assert.ok(final.text.length > 0);
  // The same deltas reached the on() handler.
  assert.ok(viaOn.join("").includes(final.text));
  // Every notification of the run belongs to this thread.
  for (const notification of seen) {
    const params = notification.params as { threadId?: string };
    assert.equal(params.threadId, thread.id, `${notification.method} from another thread`);
  }
});

test("notifications() buffers from the moment of the call", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  client.onCommandApproval(() => ({ decision: "decline" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  const stream = client.notifications();
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "hi" }]);
  await run.completed;
  const methods: string[] = [];
  for await (const notification of stream) {
    methods.push(notification.method);
    if (notification.method === "turn/completed") break;
  }
  assert.equal(methods[0], "thread/started");
  assert.ok(methods.includes("item/agentMessage/delta"));
});

test("interrupt: the turn completes as interrupted and the thread goes idle", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Take your time" }]);
  // Interrupt as soon as the model starts streaming: the demo is still far from its last word.
  let interrupted = false;
  for await (const notification of run) {
    if (!interrupted && notification.method === "item/started" && notification.params.item.type !== "userMessage") {
      interrupted = true;
      await run.interrupt();
    }
  }
  const turn = await run.completed;
  assert.ok(interrupted, "the turn never started streaming");
  assert.equal(turn.status, "interrupted");
  assert.deepEqual(turn.items, []);
  const statuses = run.notifications.flatMap((notification) =>
    notification.method === "thread/status/changed" ? [notification.params.status.type] : [],
  );
  assert.equal(statuses.at(-1), "idle");
  // Interrupting a finished turn is a request-level error.
  await assert.rejects(run.interrupt(), { name: "AppServerError", code: -32600 });
  // The thread takes a new turn afterwards.
  const next = client.runTurn(thread.id, [{ type: "text", text: "Now finish" }]);
  client.onCommandApproval(() => ({ decision: "decline" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  assert.equal((await within(20_000, "second turn", next.completed)).status, "completed");
});

test("runTurn on an unknown thread rejects started and completed, and iteration throws", { timeout: 20_000 }, async (t) => {
  const client = await spawnStable(t, demoHome(t));
  const run = client.runTurn("0190f0f0-0000-7000-8000-000000000000", [{ type: "text", text: "hi" }]);
  await assert.rejects(run.started, { name: "AppServerError", code: -32600 });
  await assert.rejects(run.completed, { name: "AppServerError", code: -32600 });
  await assert.rejects(async () => {
    for await (const _ of run) assert.fail("no notification expected");
  }, { name: "AppServerError" });
});
