// Threads across server processes: list, read, resume, fork and archive on one TANDEM_HOME.

import assert from "node:assert/strict";
import { test } from "node:test";
import { demoHome, spawnStable, within } from "./helpers.js";

test("a thread outlives its server: list, read, resume and a second turn", { timeout: 60_000 }, async (t) => {
  const home = demoHome(t);
  const first = await spawnStable(t, home);
  first.onCommandApproval(() => ({ decision: "decline" }));
  first.onFileChangeApproval(() => ({ decision: "decline" }));
  const { thread } = await first.request("thread/start", { cwd: home.workspace });
  const firstTurn = await within(20_000, "first turn", first.runTurn(thread.id, [{ type: "text", text: "Remember the word ember" }]).completed);
  assert.equal(firstTurn.status, "completed");
  assert.deepEqual(await first.close(), { code: 0, signal: null });

  const second = await spawnStable(t, home);
  second.onCommandApproval(() => ({ decision: "decline" }));
  second.onFileChangeApproval(() => ({ decision: "decline" }));
  const listing = await second.request("thread/list", {});
  assert.deepEqual(listing.data.map((listed) => listed.id), [thread.id]);
  assert.equal(listing.data[0]?.preview, "Remember the word ember");
  assert.equal(listing.nextCursor, null);

  const { thread: read } = await second.request("thread/read", { threadId: thread.id, includeTurns: true });
  assert.deepEqual(read.turns.map((turn) => [turn.id, turn.status]), [[firstTurn.id, "completed"]]);
  assert.equal(read.status.type, "notLoaded");

  const resumed = await second.request("thread/resume", { threadId: thread.id });
  assert.equal(resumed.thread.id, thread.id);
  assert.equal(resumed.modelProvider, "demo");
  assert.deepEqual(resumed.thread.turns.map((turn) => turn.id), [firstTurn.id]);
  const secondTurn = await within(20_000, "second turn", second.runTurn(thread.id, [{ type: "text", text: "Which word?" }]).completed);
  assert.equal(secondTurn.status, "completed");
  assert.notEqual(secondTurn.id, firstTurn.id);

  const { thread: after } = await second.request("thread/read", { threadId: thread.id, includeTurns: true });
  assert.deepEqual(after.turns.map((turn) => turn.id), [firstTurn.id, secondTurn.id]);
});

test("fork copies a thread; archive hides it from the default list", { timeout: 60_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  client.onCommandApproval(() => ({ decision: "decline" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const turn = await within(20_000, "turn", client.runTurn(thread.id, [{ type: "text", text: "Original" }]).completed);

  const { thread: fork } = await client.request("thread/fork", { threadId: thread.id });
  assert.notEqual(fork.id, thread.id);
  assert.equal(fork.forkedFromId, thread.id);
  assert.deepEqual(fork.turns.map((forked) => forked.status), [turn.status]);

  await client.request("thread/archive", { threadId: thread.id });
  const active = await client.request("thread/list", {});
  assert.ok(!active.data.some((listed) => listed.id === thread.id), "archived thread still listed");
  const archived = await client.request("thread/list", { archived: true });
  assert.deepEqual(archived.data.map((listed) => listed.id), [thread.id]);
});
