// A scripted model server speaking the OpenAI Responses API (streamed SSE) on loopback, for
// running the official Codex SDKs against `tandem exec` without a network or a key.
//
// The answer depends only on the request, so that any number of runs share one server:
// - the last input item is a tool result: "Command output: <first line of the output>";
// - the last user message starts with `run: CMD`: an `exec_command` call running CMD
//   (`escalate: CMD`: the same, asking to run outside the sandbox);
// - the request asks for structured output (`text.format`): the JSON after `json:` in the
//   prompt, or `{"answer":"ok"}`;
// - the last user message holds an image: "I see 1 image(s).";
// - the prompt is `recall`: "Earlier you said: <the prompt of the previous turn>";
// - otherwise: "You said: <the prompt>".
// Prints `listening on http://127.0.0.1:PORT/v1` once ready.
import http from "node:http";

const port = Number(process.env.MOCK_MODEL_PORT ?? 0);

function sse(res, events) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) {
    res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }
  res.end();
}

/** The prompts of the user messages, oldest first (context the server adds starts with `<`). */
function prompts(input) {
  const found = [];
  for (const item of input) {
    if (item.type !== "message" || item.role !== "user" || !Array.isArray(item.content)) continue;
    const texts = item.content.filter((p) => p.type === "input_text" && !p.text.trimStart().startsWith("<"));
    if (texts.length) found.push(texts[texts.length - 1].text.trim());
  }
  return found;
}

function lastUserMessage(input) {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item.type === "message" && item.role === "user") {
      const parts = Array.isArray(item.content) ? item.content : [{ type: "input_text", text: String(item.content) }];
      const text = parts.filter((p) => p.type === "input_text").map((p) => p.text);
      // The last text part is the prompt; earlier ones are context the server adds.
      return { text: text.length ? text[text.length - 1] : "", images: parts.filter((p) => p.type === "input_image").length };
    }
  }
  return { text: "", images: 0 };
}

function message(text) {
  const id = "msg_1";
  return [
    { type: "response.output_item.added", output_index: 0, item: { type: "message", role: "assistant", id, status: "in_progress", content: [] } },
    { type: "response.output_text.delta", item_id: id, output_index: 0, content_index: 0, delta: text },
    { type: "response.output_item.done", output_index: 0, item: { type: "message", role: "assistant", id, status: "completed", content: [{ type: "output_text", text, annotations: [] }] } },
  ];
}

function functionCall(cmd, escalate) {
  const args = escalate ? { cmd, sandbox_permissions: "require_escalated", justification: "needs to run outside the sandbox" } : { cmd };
  const call = { type: "function_call", id: "fc_1", call_id: "call_1", name: "exec_command", arguments: JSON.stringify(args) };
  return [
    { type: "response.output_item.added", output_index: 0, item: { ...call, arguments: "", status: "in_progress" } },
    { type: "response.output_item.done", output_index: 0, item: { ...call, status: "completed" } },
  ];
}

function respond(body) {
  const input = Array.isArray(body.input) ? body.input : [];
  const last = input[input.length - 1] ?? {};
  if (last.type === "function_call_output") {
    const output = typeof last.output === "string" ? last.output : JSON.stringify(last.output);
    const lines = output.split("\n").filter((line) => line.trim() !== "");
    return message(`Command output: ${lines[lines.length - 1] ?? ""}`);
  }
  const prompt = lastUserMessage(input);
  const run = /^(run|escalate): (.*)$/s.exec(prompt.text.trim());
  if (run) return functionCall(run[2], run[1] === "escalate");
  if (body.text && body.text.format) {
    const json = /json: (.*)$/s.exec(prompt.text.trim());
    return message(json ? json[1] : JSON.stringify({ answer: "ok" }));
  }
  if (prompt.images > 0) return message(`I see ${prompt.images} image(s).`);
  if (prompt.text.trim() === "recall") {
    const earlier = prompts(input);
    return message(`Earlier you said: ${earlier.length > 1 ? earlier[earlier.length - 2] : "nothing"}`);
  }
  return message(`You said: ${prompt.text.trim()}`);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    if (req.method === "GET" && req.url.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [], models: [] }));
      return;
    }
    if (req.method !== "POST" || !req.url.endsWith("/responses")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "body is not JSON" } }));
      return;
    }
    const items = respond(body);
    sse(res, [
      { type: "response.created", response: { id: "resp_1", status: "in_progress" } },
      ...items,
      {
        type: "response.completed",
        response: {
          id: "resp_1",
          status: "completed",
          usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
        },
      },
    ]);
  });
});

server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/v1\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
