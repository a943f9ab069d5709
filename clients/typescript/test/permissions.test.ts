// Permission requests against the real binary: with `request_permissions_tool` set, the demo
// provider asks for network access once and `onPermissionsApproval` answers with a grant.

import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { PermissionsRequestApprovalParams } from "../src/index.js";
import { demoHome, spawnStable, within } from "./helpers.js";

test("onPermissionsApproval is asked and its grant answers the request", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  appendFileSync(join(home.home, "config.toml"), "request_permissions_tool = true\n");
  const client = await spawnStable(t, home);
  const asked: PermissionsRequestApprovalParams[] = [];
  client.onPermissionsApproval((params) => {
    asked.push(params);
    return { permissions: { network: params.permissions.network ?? null, fileSystem: null }, scope: "turn" };
  });
  client.onCommandApproval(() => ({ decision: "decline" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  const turn = await within(20_000, "turn/completed", run.completed);
  assert.equal(turn.status, "completed");
  assert.deepEqual(
    asked.map(({ threadId, reason, permissions }) => ({ threadId, reason, network: permissions.network })),
    [
      {
        threadId: thread.id,
        reason: "The demo would like to show a permission request.",
        network: { enabled: true },
      },
    ],
  );
});
