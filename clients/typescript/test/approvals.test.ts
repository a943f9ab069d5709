// Server requests against the real binary. Under `approval_policy = "untrusted"` one demo turn
// keeps a plan (`turn/plan/updated`), runs `uname -srm` behind a command approval, adds
// `tandem-demo.txt` to the thread's cwd behind a file-change approval and, in plan collaboration
// mode only, asks one question with `item/tool/requestUserInput`, then choice questions with
// `agent/askUserQuestion` and an open one with `agent/requestUserInput`; its last message reports
// what happened to each.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type {
  CommandExecutionRequestApprovalParams,
  Experimental,
  FileChangeRequestApprovalParams,
  NotificationOf,
  Protocol,
  ThreadItem,
  TurnRun,
} from "../src/index.js";
import { AppServerClient } from "../src/index.js";
import { closeWithHome, demoHome, spawnExperimental, spawnOptions, spawnStable, within } from "./helpers.js";

/** The final state of every item of `type` the run completed. */
function completedItems<T extends ThreadItem["type"], P extends Protocol>(
  run: TurnRun<P>,
  type: T,
): Extract<ThreadItem, { type: T }>[] {
  return (run.notifications as readonly NotificationOf[]).flatMap((notification) =>
    notification.method === "item/completed" && notification.params.item.type === type
      ? [notification.params.item as Extract<ThreadItem, { type: T }>]
      : [],
  );
}

/** The text of the turn's last agent message. */
function finalMessage<P extends Protocol>(run: TurnRun<P>): string {
  const messages = completedItems(run, "agentMessage");
  assert.ok(messages.length > 0, "the turn has no agent message");
  return messages.at(-1)?.text ?? "";
}

/** The `requestId`s of the run's `serverRequest/resolved` notifications. */
function resolvedRequests<P extends Protocol>(run: TurnRun<P>): (string | number)[] {
  return (run.notifications as readonly NotificationOf[]).flatMap((notification) =>
    notification.method === "serverRequest/resolved" ? [notification.params.requestId] : [],
  );
}

test("accepted approvals: the command runs, the file is written, the plan is reported", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  const commands: CommandExecutionRequestApprovalParams[] = [];
  const fileChanges: FileChangeRequestApprovalParams[] = [];
  const requestIds: (string | number)[] = [];
  client.onCommandApproval((params, request) => {
    commands.push(params);
    requestIds.push(request.id);
    return { decision: "accept" };
  });
  client.onFileChangeApproval(async (params, request) => {
    fileChanges.push(params);
    requestIds.push(request.id);
    return { decision: "accept" };
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });

  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.equal(commands.length, 1, "expected one item/commandExecution/requestApproval");
  assert.match(commands[0]?.command ?? "", /uname -srm/);
  assert.equal(commands[0]?.cwd, home.workspace);
  assert.equal(commands[0]?.threadId, thread.id);
  assert.equal(commands[0]?.turnId, turn.id);
  const [command] = completedItems(run, "commandExecution");
  assert.equal(command?.id, commands[0]?.itemId);
  assert.equal(command?.status, "completed");
  assert.equal(command?.exitCode, 0);
  assert.match(command?.aggregatedOutput ?? "", /^Linux /);

  assert.equal(fileChanges.length, 1, "expected one item/fileChange/requestApproval");
  const [fileChange] = completedItems(run, "fileChange");
  assert.equal(fileChange?.id, fileChanges[0]?.itemId);
  assert.equal(fileChange?.status, "completed");
  const demoFile = join(home.workspace, "tandem-demo.txt");
  assert.deepEqual(fileChange?.changes.map((change) => [change.path, change.kind.type]), [[demoFile, "add"]]);
  assert.equal(readFileSync(demoFile, "utf8"), "Hello from the Tandem demo.\n");

  // Each answered request is acknowledged with serverRequest/resolved inside the turn.
  assert.deepEqual(requestIds, [0, 1]);
  assert.deepEqual(resolvedRequests(run), [0, 1]);
  const plans = run.notifications.flatMap((notification) =>
    notification.method === "turn/plan/updated" ? [notification.params.plan.map((step) => step.status)] : [],
  );
  assert.deepEqual(plans, [
    ["inProgress", "pending", "pending"],
    ["completed", "completed", "inProgress"],
  ]);
  assert.match(finalMessage(run), /the command printed “Linux .*”; I created tandem-demo\.txt; questions need plan mode/);
});

test("one approval accepted, one declined: the command runs, the file is not written", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  client.onCommandApproval(() => ({ decision: "accept" }));
  // The generic form, typed by the method's entry in ServerRequestMap.
  const methods: string[] = [];
  client.onServerRequest("item/fileChange/requestApproval", (params, request) => {
    methods.push(request.method);
    assert.equal(typeof params.itemId, "string");
    return { decision: "decline" };
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });

  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.deepEqual(methods, ["item/fileChange/requestApproval"]);
  // Declining (unlike `cancel`) lets the turn go on to its final message.
  assert.equal(turn.status, "completed");
  assert.deepEqual(completedItems(run, "commandExecution").map((item) => item.status), ["completed"]);
  assert.deepEqual(completedItems(run, "fileChange").map((item) => item.status), ["declined"]);
  assert.equal(existsSync(join(home.workspace, "tandem-demo.txt")), false);
  assert.match(finalMessage(run), /the command printed “Linux .*”; you declined the patch;/);
});

test("declined approvals: nothing runs and nothing is written", { timeout: 30_000 }, async (t) => {
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

  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.equal(asked, 2, "expected a command and a file-change approval");
  const [command] = completedItems(run, "commandExecution");
  assert.equal(command?.status, "declined");
  assert.equal(command?.aggregatedOutput, null);
  assert.deepEqual(completedItems(run, "fileChange").map((item) => item.status), ["declined"]);
  assert.equal(existsSync(join(home.workspace, "tandem-demo.txt")), false);
  assert.match(finalMessage(run), /you declined the command; you declined the patch;/);
});

test("unhandled server requests are answered with an error and the turn goes on", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  // No handlers: the client must answer each request with a JSON-RPC error, never leave it hanging.
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.deepEqual(resolvedRequests(run), [0, 1]);
  assert.deepEqual(completedItems(run, "commandExecution").map((item) => item.status), ["failed"]);
  assert.deepEqual(completedItems(run, "fileChange").map((item) => item.status), ["failed"]);
  assert.equal(existsSync(join(home.workspace, "tandem-demo.txt")), false);
});

test("a handler that throws answers with an error; onError hears the exception", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  client.onCommandApproval(() => {
    throw new Error("no terminal to ask");
  });
  client.onFileChangeApproval(() => ({ decision: "accept" }));
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.deepEqual(completedItems(run, "commandExecution").map((item) => item.status), ["failed"]);
  assert.deepEqual(completedItems(run, "fileChange").map((item) => item.status), ["completed"]);
  assert.deepEqual(errors.map((error) => error.message), ["no terminal to ask"]);
});

test("interrupt while an approval is pending: the turn ends interrupted and the request is withdrawn", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  // The withdrawal is announced after turn/completed, so it is watched on the client, not the run.
  const withdrawn = new Promise<string | number>((resolve) => {
    client.on("serverRequest/resolved", (params) => resolve(params.requestId));
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  let asked = 0;
  // Never answers: the interrupt has to resolve the request.
  client.onCommandApproval(async () => {
    asked += 1;
    await run.interrupt();
    return new Promise<never>(() => {});
  });
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(asked, 1);
  assert.equal(turn.status, "interrupted");
  assert.deepEqual(completedItems(run, "commandExecution"), []);
  assert.equal(await within(5_000, "serverRequest/resolved", withdrawn), 0);
  assert.equal(existsSync(join(home.workspace, "tandem-demo.txt")), false);
});

test("user input in plan mode: the question reaches onUserInput and the answer reaches the agent", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnExperimental(t, home);
  client.onCommandApproval(() => ({ decision: "accept" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  const questions: Experimental.ToolRequestUserInputParams[] = [];
  client.onUserInput((params) => {
    questions.push(params);
    const [question] = params.questions;
    assert.ok(question !== undefined);
    const explain = question.options?.find((option) => option.label === "Explain");
    assert.ok(explain !== undefined, "no Explain option");
    return { answers: { [question.id]: { answers: [explain.label] } } };
  });
  const choices: Experimental.AgentAskUserQuestionParams[] = [];
  client.onAskUserQuestion((params) => {
    choices.push(params);
    return {
      answers: params.questions.map((question, questionIndex) => ({
        questionIndex,
        selected: question.type === "multi_choice" ? question.options.slice(0, 2) : [question.options[1] ?? ""],
      })),
    };
  });
  const prompts: string[] = [];
  client.onAgentUserInput((params) => {
    prompts.push(params.prompt);
    return { userInput: "typed by the SDK" };
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });

  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }], {
    collaborationMode: { mode: "plan", settings: { model: "demo" } },
  });
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.deepEqual(
    choices[0]?.questions.map((question) => [question.type, question.text]),
    [
      ["multi_choice", "Which parts of the tour were useful?"],
      ["single_choice", "Would you try Tandem with a real model?"],
    ],
  );
  assert.equal(choices[0]?.toolCallId, "call_demo_choice");
  assert.deepEqual(prompts, ["Anything you would like the demo to know?"]);
  assert.match(finalMessage(run), /"selected":\["The plan","The command"\]/);
  assert.match(finalMessage(run), /"selected":\["Not yet"\]/);
  assert.match(finalMessage(run), /typed by the SDK/);
  assert.equal(questions.length, 1);
  assert.equal(questions[0]?.threadId, thread.id);
  assert.equal(questions[0]?.turnId, turn.id);
  assert.deepEqual(
    questions[0]?.questions.map((question) => [question.id, question.question]),
    [["next_step", "What should the demo do next?"]],
  );
  const flags = run.notifications.flatMap((notification) =>
    notification.method === "thread/status/changed" && notification.params.status.type === "active"
      ? notification.params.status.activeFlags
      : [],
  );
  assert.deepEqual(flags, [
    "waitingOnApproval",
    "waitingOnApproval",
    "waitingOnUserInput",
    "waitingOnUserInput",
    "waitingOnUserInput",
  ]);
  assert.deepEqual(resolvedRequests(run), [0, 1, 2, 3, 4]);
  assert.match(finalMessage(run), /you answered \{"answers":\{"next_step":\{"answers":\["Explain"\]\}\}\}/);
});

test("tool/requestUserInput when chosen at initialize: answers by index, cancels reach the agent", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await AppServerClient.spawn({
    ...spawnOptions(home),
    capabilities: { experimentalApi: true, requestUserInputMethod: "tool/requestUserInput" },
  });
  closeWithHome(t, home, client);
  client.onCommandApproval(() => ({ decision: "accept" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  const asked: Experimental.UserInputRequestParams[] = [];
  client.onToolUserInput((params) => {
    asked.push(params);
    return { answers: [{ questionIndex: 0, selected: ["Explain"] }] };
  });
  client.onAskUserQuestion(() => {
    throw new Error("User cancelled input");
  });
  client.onAgentUserInput(() => {
    throw new Error("User cancelled input");
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }], {
    collaborationMode: { mode: "plan", settings: { model: "demo" } },
  });
  const turn = await within(20_000, "turn/completed", run.completed);

  assert.equal(turn.status, "completed");
  assert.equal(asked.length, 1);
  assert.equal(asked[0]?.toolCallId, "call_demo_question");
  assert.deepEqual(asked[0]?.questions, [
    { text: "What should the demo do next?", options: ["Finish (Recommended)", "Explain"], isOther: true },
  ]);
  assert.match(finalMessage(run), /you answered \{"answers":\{"next_step":\{"answers":\["Explain"\]\}\}\}/);
  assert.match(finalMessage(run), /ask_user_question was cancelled/);
  assert.match(finalMessage(run), /ask_user was cancelled/);
});

test("without plan mode the question is not asked", { timeout: 30_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnExperimental(t, home);
  client.onCommandApproval(() => ({ decision: "decline" }));
  client.onFileChangeApproval(() => ({ decision: "decline" }));
  let asked = 0;
  client.onUserInput(() => {
    asked += 1;
    return { answers: {} };
  });
  const { thread } = await client.request("thread/start", { cwd: home.workspace });
  const run = client.runTurn(thread.id, [{ type: "text", text: "Show me around" }]);
  assert.equal((await within(20_000, "turn/completed", run.completed)).status, "completed");
  assert.equal(asked, 0);
  assert.match(finalMessage(run), /questions need plan mode/);
});
