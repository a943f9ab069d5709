// Permission requests: grant (or refuse) what the model asks for beyond its sandbox.
//
//   node dist/examples/permissions.js [--demo] [--yes|--no] "your request"
//
// The server is started with `request_permissions_tool = true`, so the model is offered
// `request_permissions`; each `item/permissions/requestApproval` is shown and answered by
// `onPermissionsApproval`: `y` grants what was asked for the rest of the turn, anything else grants
// nothing. The server grants only what its operator's `[clients]` ceiling allows. With `--demo` the
// offline scripted provider asks for network access once.

import { createInterface } from "node:readline";
import { AppServerClient } from "../src/index.js";

const argv = process.argv.slice(2);
const demo = argv.includes("--demo");
const preset = argv.includes("--yes") ? "y" : argv.includes("--no") ? "n" : undefined;
const prompt = argv.filter((arg) => !arg.startsWith("--")).join(" ") || "Fetch the latest release notes";
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function answer(): Promise<string> {
  if (preset !== undefined) return preset;
  const next = await lines.next();
  return next.done === true ? "n" : next.value.trim().toLowerCase();
}

const client = await AppServerClient.spawn({
  command: [process.env.TANDEM_BIN ?? "tandem", "app-server"],
  args: ["-c", "request_permissions_tool=true", ...(demo ? ["-c", 'model_provider="demo"'] : [])],
  stderr: "ignore",
});
try {
  client.onPermissionsApproval(async ({ permissions, cwd, reason }) => {
    console.log(`[the agent asks for ${JSON.stringify(permissions)} in ${cwd}: ${reason ?? "no reason given"}]`);
    const granted = (await answer()).startsWith("y");
    console.log(granted ? "[granted for the turn]" : "[refused]");
    return granted
      ? { permissions: { network: permissions.network ?? null, fileSystem: permissions.fileSystem ?? null }, scope: "turn" }
      : { permissions: { network: null, fileSystem: null }, scope: "turn" };
  });
  client.onCommandApproval(() => ({ decision: "decline" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  const { thread } = await client.request("thread/start", {
    cwd: process.cwd(),
    approvalPolicy: "on-request",
    sandbox: "read-only",
  });
  const run = client.runTurn(thread.id, [{ type: "text", text: prompt }]);
  for await (const notification of run) {
    if (notification.method === "item/agentMessage/delta") process.stdout.write(notification.params.delta);
    if (notification.method === "item/completed" && notification.params.item.type === "agentMessage") {
      process.stdout.write("\n");
    }
  }
  const turn = await run.completed;
  console.log(`[turn ${turn.status}]`);
  process.exitCode = turn.status === "completed" ? 0 : 1;
} finally {
  lines.return?.();
  await client.close();
}
