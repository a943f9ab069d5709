// Ask and stream: start a thread, run one turn, print the answer as it streams.
//
//   node dist/examples/ask.js [--demo] "your question"
//
// The server is `$TANDEM_BIN app-server` (default `tandem` on PATH); `--demo` selects the offline
// scripted provider, so no model or network is needed.

import { AppServerClient } from "../src/index.js";

const argv = process.argv.slice(2);
const demo = argv.includes("--demo");
const prompt = argv.filter((arg) => arg !== "--demo").join(" ") || "What can you do?";

const client = await AppServerClient.spawn({
  command: [process.env.TANDEM_BIN ?? "tandem", "app-server"],
  args: demo ? ["-c", 'model_provider="demo"'] : [],
  stderr: "ignore",
});
try {
  const { thread } = await client.request("thread/start", { cwd: process.cwd(), approvalPolicy: "never" });
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
  await client.close();
}
