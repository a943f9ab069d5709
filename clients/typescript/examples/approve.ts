// Approve from the terminal: run one turn under the `untrusted` approval policy and answer each
// command and file-change approval with y/n typed on stdin.
//
//   node dist/examples/approve.js [--demo] [--yes | --no] ["your request"]
//
// `--yes` / `--no` answer every approval without asking (for scripts and CI); answers can also be
// piped (`printf 'y\nn\n' | node dist/examples/approve.js --demo`). When stdin runs out, the answer is no.

import { createInterface } from "node:readline";
import { AppServerClient } from "../src/index.js";

const argv = process.argv.slice(2);
const demo = argv.includes("--demo");
const fixed = argv.includes("--yes") ? true : argv.includes("--no") ? false : undefined;
const prompt = argv.filter((arg) => !arg.startsWith("--")).join(" ") || "Show me what you can do";

// One reader for the whole run: each approval takes the next line.
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function ask(question: string): Promise<boolean> {
  process.stdout.write(`${question} [y/n] `);
  if (fixed !== undefined) {
    console.log(fixed ? "y (--yes)" : "n (--no)");
    return fixed;
  }
  const line = await lines.next();
  const answer = line.done === true ? "" : line.value.trim().toLowerCase();
  console.log(line.done === true ? "(no input: n)" : answer);
  return answer === "y" || answer === "yes";
}

const client = await AppServerClient.spawn({
  command: [process.env.TANDEM_BIN ?? "tandem", "app-server"],
  args: demo ? ["-c", 'model_provider="demo"'] : [],
  stderr: "ignore",
});
try {
  // File-change approvals name the item; its `item/started` (which comes first) has the paths.
  const pendingPaths = new Map<string, string[]>();
  client.on("item/started", ({ item }) => {
    if (item.type === "fileChange") pendingPaths.set(item.id, item.changes.map((change) => `${change.kind.type} ${change.path}`));
  });
  client.onCommandApproval(async (params) => {
    const yes = await ask(`Run \`${params.command ?? "(unknown command)"}\` in ${params.cwd ?? "?"}?`);
    return { decision: yes ? "accept" : "decline" };
  });
  client.onFileChangeApproval(async (params) => {
    const paths = pendingPaths.get(params.itemId)?.join(", ") ?? "(unknown files)";
    const yes = await ask(`Apply the file change: ${paths}${params.reason ? ` (${params.reason})` : ""}?`);
    return { decision: yes ? "accept" : "decline" };
  });
  const { thread } = await client.request("thread/start", { cwd: process.cwd(), approvalPolicy: "untrusted" });
  const run = client.runTurn(thread.id, [{ type: "text", text: prompt }]);
  for await (const notification of run) {
    if (notification.method === "item/completed") {
      const { item } = notification.params;
      if (item.type === "agentMessage") console.log(item.text);
      if (item.type === "commandExecution") console.log(`[command ${item.status}] ${item.command}`);
      if (item.type === "fileChange") {
        console.log(`[file change ${item.status}] ${item.changes.map((change) => change.path).join(", ")}`);
      }
    }
  }
  const turn = await run.completed;
  console.log(`[turn ${turn.status}]`);
  process.exitCode = turn.status === "completed" ? 0 : 1;
} finally {
  await client.close();
  process.stdin.destroy();
}
