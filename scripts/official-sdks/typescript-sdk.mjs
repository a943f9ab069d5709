// The official TypeScript SDK (`@openai/codex-sdk`), unchanged, against `tandem exec`: only its
// public API, pointed at Tandem through `codexPathOverride`.
//
// Environment: TANDEM_BIN (the binary), WORKSPACE (a git repository), PLAIN_DIR (a directory that
// is not one), PIXEL (a PNG file); the home is CODEX_HOME, as an SDK user would set it.
// Run from the scratch project where the SDK is installed (`node typescript-sdk.mjs`).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Codex } from "@openai/codex-sdk";

const codex = new Codex({ codexPathOverride: process.env.TANDEM_BIN });
const workspace = process.env.WORKSPACE;
const options = { workingDirectory: workspace };

async function check(name, body) {
  try {
    await body();
    console.log(`ok: typescript ${name}`);
  } catch (error) {
    console.error(`FAILED: typescript ${name}`);
    throw error;
  }
}

await check("plain run", async () => {
  const thread = codex.startThread({ workingDirectory: process.env.PLAIN_DIR, skipGitRepoCheck: true });
  const turn = await thread.run("hello");
  assert.equal(turn.finalResponse, "You said: hello");
  assert.ok(thread.id, "the thread has an id");
  assert.deepEqual(
    turn.items.map((item) => item.type),
    ["agent_message"],
  );
  assert.equal(turn.usage.input_tokens, 10);
  assert.equal(turn.usage.output_tokens, 5);
});

await check("streamed run", async () => {
  const thread = codex.startThread(options);
  const { events } = await thread.runStreamed("stream this");
  const seen = [];
  for await (const event of events) seen.push(event);
  assert.deepEqual(
    seen.map((event) => event.type),
    ["thread.started", "turn.started", "item.completed", "turn.completed"],
  );
  assert.equal(seen[0].thread_id, thread.id);
  assert.equal(seen[2].item.type, "agent_message");
  assert.equal(seen[2].item.text, "You said: stream this");
});

await check("output schema", async () => {
  const thread = codex.startThread(options);
  const schema = {
    type: "object",
    properties: { answer: { type: "string" } },
    required: ["answer"],
    additionalProperties: false,
  };
  const turn = await thread.run('json: {"answer":"forty-two"}', { outputSchema: schema });
  assert.deepEqual(JSON.parse(turn.finalResponse), { answer: "forty-two" });
});

await check("resumed thread", async () => {
  const first = codex.startThread(options);
  await first.run("remember the tandem");
  const resumed = codex.resumeThread(first.id, options);
  const turn = await resumed.run("recall");
  assert.equal(resumed.id, first.id);
  assert.equal(turn.finalResponse, "Earlier you said: remember the tandem");
});

await check("image", async () => {
  const thread = codex.startThread(options);
  const turn = await thread.run([
    { type: "text", text: "what is in this picture?" },
    { type: "local_image", path: process.env.PIXEL },
  ]);
  assert.equal(turn.finalResponse, "I see 1 image(s).");
});

await check("command refused by the read-only sandbox", async () => {
  const thread = codex.startThread({ ...options, sandboxMode: "read-only" });
  const target = join(workspace, "refused-ts.txt");
  const turn = await thread.run(`run: touch ${target}`);
  const command = turn.items.find((item) => item.type === "command_execution");
  assert.ok(command, "a command item");
  assert.equal(command.status, "failed");
  assert.notEqual(command.exit_code, 0);
  assert.equal(existsSync(target), false, "the sandbox let the write through");
  assert.match(turn.finalResponse, /^Command output: /);
});

await check("command declined by the approval policy", async () => {
  const thread = codex.startThread({ ...options, sandboxMode: "read-only", approvalPolicy: "untrusted" });
  const target = join(workspace, "declined-ts.txt");
  const turn = await thread.run(`run: touch ${target}`);
  const command = turn.items.find((item) => item.type === "command_execution");
  assert.ok(command, "a command item");
  assert.equal(command.status, "declined");
  assert.equal(existsSync(target), false, "the declined command ran");
});
