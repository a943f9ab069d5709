// The official TypeScript SDK client against tandem mcp-server, over stdio and streamable
// HTTP, with the offline demo provider: tools/list, a `codex` call whose approvals arrive as
// elicitations (accepted), progress and codex/event notifications, then `codex-reply`.
// Environment: TANDEM_BIN, TANDEM_HOME (with config.toml), MCP_URL, WORKSPACE.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

async function check(transport, label) {
  const client = new Client({ name: "tandem-interop", version: "1.0" }, { capabilities: { elicitation: {} } });
  let elicitations = 0;
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    assert.deepEqual(request.params.requestedSchema.required, ["decision"]);
    elicitations++;
    return { action: "accept", content: { decision: "approved" } };
  });
  let events = 0;
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === "codex/event") events++;
  };
  await client.connect(transport);
  assert.equal(client.getServerVersion().name, "tandem-mcp-server");
  const tools = await client.listTools();
  const names = tools.tools.map((tool) => tool.name);
  assert.ok(names.includes("codex") && names.includes("codex-reply"), names.join(", "));
  let progress = 0;
  const result = await client.callTool(
    {
      name: "codex",
      arguments: { prompt: "Show me what you can do.", cwd: process.env.WORKSPACE, "approval-policy": "untrusted", sandbox: "workspace-write" },
    },
    undefined,
    { onprogress: () => progress++, timeout: 60000 },
  );
  assert.equal(result.isError, false, JSON.stringify(result));
  assert.ok(elicitations >= 1, "approvals arrived as elicitations");
  assert.ok(events > 10, "codex/event notifications arrived");
  assert.ok(progress > 3, "progress notifications arrived");
  const reply = await client.callTool(
    { name: "codex-reply", arguments: { threadId: result.structuredContent.threadId, prompt: "Again." } },
    undefined,
    { timeout: 60000 },
  );
  assert.equal(reply.isError, false, JSON.stringify(reply));
  assert.equal(reply.structuredContent.threadId, result.structuredContent.threadId);
  await client.close();
  console.log(`${label}: ok (${elicitations} elicitations, ${events} events, ${progress} progress notifications)`);
}

await check(
  new StdioClientTransport({ command: process.env.TANDEM_BIN, args: ["mcp-server"], env: { ...process.env } }),
  "stdio",
);
await check(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL)), "http");
