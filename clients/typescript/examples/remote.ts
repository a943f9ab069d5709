// Ask a running server: connect to a `ws://` listener with a bearer token (or to a `unix://`
// socket), run one turn, print the answer as it streams.
//
//   tandem app-server --listen ws://127.0.0.1:4500 --ws-token-file ~/.tandem-ws.token &
//   node dist/examples/remote.js ws://127.0.0.1:4500 --token-file ~/.tandem-ws.token "your question"
//   node dist/examples/remote.js unix:///run/user/1000/tandem.sock "your question"
//
// The token comes from `--token-file PATH` (the file the server's `--ws-token-file` names) or
// `$TANDEM_WS_TOKEN`; a Unix socket needs none. The server keeps running after the example ends.

import { readFileSync } from "node:fs";
import { AppServerClient, WebSocketRefusedError } from "../src/index.js";

const args = process.argv.slice(2);
let token = process.env.TANDEM_WS_TOKEN;
const tokenFlag = args.indexOf("--token-file");
if (tokenFlag >= 0) {
  token = readFileSync(args[tokenFlag + 1] ?? "", "utf8").trim();
  args.splice(tokenFlag, 2);
}
const [url, ...words] = args;
if (url === undefined) {
  console.error("usage: remote.js ws://HOST:PORT|unix:///path [--token-file PATH] [question]");
  process.exit(2);
}
const prompt = words.join(" ") || "What can you do?";

let client: AppServerClient;
try {
  client = await AppServerClient.connectUrl({ url, token });
} catch (error) {
  if (!(error instanceof WebSocketRefusedError)) throw error;
  console.error(`error: ${error.message}`);
  process.exit(1);
}
try {
  console.log(`[connected to ${client.initializeResponse.userAgent}]`);
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
