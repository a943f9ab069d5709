// Command and file-change approvals against the real binary: the demo's stage (1) runs
// `mkdir -p tandem-demo && …` and stage (2) adds `tandem-demo/hello.txt`, each behind an approval
// under `approval_policy = "untrusted"`.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { CommandExecutionRequestApprovalParams, FileChangeRequestApprovalParams, ThreadItem, TurnRun } from "../src/index.js";
import { demoHome, spawnStable, within } from "./helpers.js";

/** The final state of every item of `type` the run completed. */
function completedItems<T extends ThreadItem["type"]>(run: TurnRun, type: T): Extract<ThreadItem, { type: T }>[] {
  return run.notifications.flatMap((notification) =>
    notification.method === "item/completed" && notification.params.item.type === type
      ? [notification.params.item as Extract<ThreadItem, { type: T }>]
      : [],
  );
}

test("accepted approvals: the command runs and the file is written", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  const commands: CommandExecutionRequestApprovalParams[] = [];
  const fileChanges: FileChangeRequestApprovalParams[] = [];
  client.onCommandApproval((params) => {
    commands.push(params);
    return { decision: "accept" };
  });
  client.onFileChangeApproval(async (params) => {
    fileChanges.push(params);
    return { decision: "accept" };
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });

  const run = client.runTurn(thread.id, [{ type: "text", text: "Create the demo files" }]);
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.equal(commands.length, 1, "expected one item/commandExecution/requestApproval");
  assert.match(commands[0]?.command ?? "", /mkdir -p tandem-demo/);
  assert.equal(commands[0]?.threadId, thread.id);
  assert.equal(commands[0]?.turnId, turn.id);
  assert.equal(fileChanges.length, 1, "expected one item/fileChange/requestApproval");
  assert.deepEqual(completedItems(run, "commandExecution").map((item) => item.status), ["completed"]);
  assert.deepEqual(completedItems(run, "fileChange").map((item) => item.status), ["completed"]);
  const hello = join(home.workspace, "tandem-demo", "hello.txt");
  assert.ok(existsSync(hello), `${hello} was not written`);
  assert.ok(readFileSync(hello, "utf8").length > 0);
  // Each answered request is acknowledged with serverRequest/resolved inside the turn.
  const resolved = run.notifications.filter((notification) => notification.method === "serverRequest/resolved");
  assert.equal(resolved.length, 2);
});

test("declined approvals: nothing runs, nothing is written, the items complete declined", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  let asked = 0;
  client.onCommandApproval(() => {
    asked += 1;
    return { decision: "decline" };
  });
  client.onFileChangeApproval(() => {
    asked += 1;
    return { decision: "decline" };
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });

  const run = client.runTurn(thread.id, [{ type: "text", text: "Create the demo files" }]);
  const turn = await within(20_000, "turn/completed", run.completed);

  // Declining (unlike `cancel`) lets the turn go on to its final message.
  assert.equal(turn.status, "completed");
  assert.equal(asked, 2, "expected a command and a file-change approval");
  assert.deepEqual(completedItems(run, "commandExecution").map((item) => item.status), ["declined"]);
  assert.deepEqual(completedItems(run, "fileChange").map((item) => item.status), ["declined"]);
  assert.equal(existsSync(join(home.workspace, "tandem-demo", "hello.txt")), false);
  assert.equal(existsSync(join(home.workspace, "tandem-demo")), false);
});
