// Client-provided tools against the real binary: a thread declares `dynamicTools` and the demo
// provider calls the first of them once, right after its plan; `onToolCall` answers, and the
// demo's last message quotes the answer it read.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Experimental, NotificationOf, ThreadItem } from "../src/index.js";
import { demoHome, spawnExperimental, within } from "./helpers.js";

const lookup = {
  type: "function" as const,
  name: "lookup",
  description: "Looks a word up.",
  inputSchema: { type: "object", properties: { request: { type: "string" } } },
};

test("a declared tool is run by onToolCall and the model reads its output", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnExperimental(t, home);
  const calls: Experimental.DynamicToolCallParams[] = [];
  client.onToolCall((params) => {
    calls.push(params);
    return { contentItems: [{ type: "inputText", text: "a word, looked up" }], success: true };
  });
  client.onCommandApproval(() => ({ decision: "decline" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  const { thread } = await client.request("thread/start", { cwd: home.workspace, dynamicTools: [lookup] });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Define serendipity" }]);
  const turn = await within(20_000, "turn/completed", run.completed);
  assert.equal(turn.status, "completed");
  assert.deepEqual(
    calls.map(({ tool, namespace, arguments: args }) => ({ tool, namespace, args })),
    [{ tool: "lookup", namespace: null, args: { request: "Define serendipity" } }],
  );
  const items = (run.notifications as readonly NotificationOf[]).flatMap((notification) =>
    notification.method === "item/completed" ? [notification.params.item as ThreadItem] : [],
  );
  const toolItems = items.filter((item) => item.type === "dynamicToolCall");
  assert.deepEqual(
    toolItems.map((item) => [item.status, item.success, item.contentItems]),
    [["completed", true, [{ type: "inputText", text: "a word, looked up" }]]],
  );
  const messages = items.filter((item) => item.type === "agentMessage");
  assert.match(messages.at(-1)?.text ?? "", /your tool `lookup` answered “a word, looked up”/);
});

test("a throwing onToolCall fails the call and the turn goes on", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnExperimental(t, home);
  client.onToolCall(() => {
    throw new Error("the dictionary is closed");
  });
  client.onCommandApproval(() => ({ decision: "decline" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  const { thread } = await client.request("thread/start", { cwd: home.workspace, dynamicTools: [lookup] });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Define serendipity" }]);
  const turn = await within(20_000, "turn/completed", run.completed);
  assert.equal(turn.status, "completed");
  const failed = (run.notifications as readonly NotificationOf[]).flatMap((notification) =>
    notification.method === "item/completed" && notification.params.item.type === "dynamicToolCall"
      ? [notification.params.item]
      : [],
  );
  assert.deepEqual(
    failed.map((item) => [item.status, item.success]),
    [["failed", false]],
  );
});
