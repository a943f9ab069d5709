// Client-provided tools: declare a tool at `thread/start` and run it when the model calls it.
//
//   node dist/examples/client-tools.js [--demo] "your request"
//
// The thread declares `shout` (experimental `dynamicTools`, so the client opts into the
// experimental API); each `item/tool/call` is answered by `onToolCall` with the tool's output,
// which the model reads. With `--demo` the offline scripted provider calls the tool once.

import { AppServerClient } from "../src/index.js";

const argv = process.argv.slice(2);
const demo = argv.includes("--demo");
const prompt = argv.filter((arg) => arg !== "--demo").join(" ") || "Shout hello";

const client = await AppServerClient.spawn({
  command: [process.env.TANDEM_BIN ?? "tandem", "app-server"],
  args: demo ? ["-c", 'model_provider="demo"'] : [],
  capabilities: { experimentalApi: true },
  stderr: "ignore",
});
try {
  client.onToolCall(({ tool, arguments: args }) => {
    console.log(`[tool ${tool} called]`);
    const request = typeof args === "object" && args !== null && "request" in args ? String(args.request) : "";
    return { contentItems: [{ type: "inputText", text: request.toUpperCase() }], success: true };
  });
  const { thread } = await client.request("thread/start", {
    cwd: process.cwd(),
    approvalPolicy: "never",
    sandbox: "read-only",
    dynamicTools: [
      {
        type: "function",
        name: "shout",
        description: "Returns the given text in capitals.",
        inputSchema: {
          type: "object",
          properties: { request: { type: "string", description: "The text to shout." } },
          required: ["request"],
        },
      },
    ],
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
  await client.close();
}
