// The reference web client of `tandem app-server --listen ws://… --web`.
//
// The token comes from the URL's fragment (`#token=…`), which the browser never sends to a
// server; the thread on screen is kept there too (`&thread=…`), so that a reload resumes it.

import type { ItemCompletedNotification } from "./generated/ItemCompletedNotification.js";
import type { ItemDeltaNotification } from "./generated/ItemDeltaNotification.js";
import type { ItemStartedNotification } from "./generated/ItemStartedNotification.js";
import type { ReasoningSummaryTextDeltaNotification } from "./generated/ReasoningSummaryTextDeltaNotification.js";
import type { ServerRequestResolvedNotification } from "./generated/ServerRequestResolvedNotification.js";
import type { Thread } from "./generated/Thread.js";
import type { ThreadItem } from "./generated/ThreadItem.js";
import type { ThreadListResponse } from "./generated/ThreadListResponse.js";
import type { ThreadResumeResponse } from "./generated/ThreadResumeResponse.js";
import type { ThreadStartResponse } from "./generated/ThreadStartResponse.js";
import type { TurnNotification } from "./generated/TurnNotification.js";
import type { TurnPlanUpdatedNotification } from "./generated/TurnPlanUpdatedNotification.js";
import type { TurnStartResponse } from "./generated/TurnStartResponse.js";
import { dialogFor } from "./dialogs.js";
import * as render from "./render.js";
import { h } from "./render.js";
import { Rpc, type ServerRequest } from "./rpc.js";

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page lacks #${id}`);
  return element as T;
}

const ui = {
  status: byId("status"),
  threads: byId<HTMLUListElement>("threads"),
  newThread: byId<HTMLButtonElement>("new-thread"),
  approval: byId<HTMLSelectElement>("approval"),
  cwd: byId<HTMLInputElement>("cwd"),
  title: byId("thread-title"),
  items: byId("items"),
  composer: byId<HTMLFormElement>("composer"),
  prompt: byId<HTMLTextAreaElement>("prompt"),
  send: byId<HTMLButtonElement>("send"),
  planMode: byId<HTMLInputElement>("plan-mode"),
  interrupt: byId<HTMLButtonElement>("interrupt"),
};

const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get("token") ?? "";

interface Shown {
  value: ThreadItem;
  element: HTMLElement;
  deltas: number;
}

const state = {
  rpc: null as Rpc | null,
  threadId: null as string | null,
  model: null as string | null,
  turnId: null as string | null,
  items: new Map<string, Shown>(),
  plans: new Map<string, HTMLElement>(),
  dialogs: new Map<string, HTMLFormElement>(),
};

function say(text: string, kind: "info" | "error" = "info"): void {
  ui.status.textContent = text;
  ui.status.dataset.kind = kind;
}

/** Keeps the token and the thread in the fragment, so that a reload comes back here. */
function remember(threadId: string | null): void {
  const next = new URLSearchParams();
  if (token !== "") next.set("token", token);
  if (threadId !== null) next.set("thread", threadId);
  history.replaceState(null, "", `#${next.toString()}`);
}

function setTurn(turnId: string | null): void {
  state.turnId = turnId;
  ui.interrupt.hidden = turnId === null;
  ui.items.setAttribute("aria-busy", String(turnId !== null));
  document.body.dataset.turn = turnId === null ? "idle" : "running";
}

function show(value: ThreadItem): void {
  const element = render.item(value);
  element.dataset.itemId = value.id;
  const known = state.items.get(value.id);
  if (known !== undefined) {
    element.dataset.deltas = String(known.deltas);
    if (known.element.tagName === "DETAILS" && element.tagName === "DETAILS") {
      (element as HTMLDetailsElement).open = (known.element as HTMLDetailsElement).open;
    }
    known.element.replaceWith(element);
    state.items.set(value.id, { value, element, deltas: known.deltas });
  } else {
    ui.items.append(element);
    state.items.set(value.id, { value, element, deltas: 0 });
  }
}

function delta(itemId: string, apply: (value: ThreadItem) => void): void {
  const shown = state.items.get(itemId);
  if (shown === undefined) return;
  apply(shown.value);
  shown.deltas += 1;
  show(shown.value);
}

function showThread(thread: Thread): void {
  state.threadId = thread.id;
  state.model = thread.model;
  state.items.clear();
  state.plans.clear();
  state.dialogs.clear();
  ui.items.replaceChildren();
  ui.title.textContent = thread.name ?? (thread.preview || "New thread");
  let running: string | null = null;
  for (const turn of thread.turns) {
    for (const value of turn.items) show(value);
    if (turn.status === "inProgress") running = turn.id;
  }
  setTurn(running);
  ui.prompt.disabled = false;
  ui.send.disabled = false;
  remember(thread.id);
  for (const entry of ui.threads.querySelectorAll("button")) {
    entry.setAttribute("aria-current", String(entry.dataset.threadId === thread.id));
  }
}

async function listThreads(): Promise<void> {
  const rpc = state.rpc;
  if (rpc === null) return;
  const list = await rpc.request<ThreadListResponse>("thread/list", { limit: 50, sortKey: "updated_at" });
  const current = list.data.find((thread) => thread.id === state.threadId);
  if (current !== undefined) ui.title.textContent = current.name ?? (current.preview || "New thread");
  ui.threads.replaceChildren(
    ...list.data.map((thread) => {
      const when = new Date(thread.updatedAt * 1000).toLocaleString();
      const entry = h(
        "button",
        { type: "button", "data-thread-id": thread.id, "aria-current": String(thread.id === state.threadId) },
        h("span", { class: "preview" }, thread.name ?? (thread.preview || "(empty thread)")),
        h("small", {}, when),
      );
      entry.addEventListener("click", () => void resume(thread.id));
      return h("li", {}, entry);
    }),
  );
}

async function leaveThread(): Promise<void> {
  if (state.rpc !== null && state.threadId !== null) {
    await state.rpc.request("thread/unsubscribe", { threadId: state.threadId }).catch(() => {});
  }
}

async function resume(threadId: string): Promise<void> {
  const rpc = state.rpc;
  if (rpc === null) return;
  if (threadId !== state.threadId) await leaveThread();
  say("Resuming the thread…");
  try {
    const resumed = await rpc.request<ThreadResumeResponse>("thread/resume", { threadId });
    showThread(resumed.thread);
    state.model = resumed.model;
    say("Thread resumed.");
  } catch (error) {
    say(`Cannot resume the thread: ${(error as Error).message}`, "error");
  }
}

async function startThread(): Promise<void> {
  const rpc = state.rpc;
  if (rpc === null) return;
  await leaveThread();
  const cwd = ui.cwd.value.trim();
  try {
    const started = await rpc.request<ThreadStartResponse>("thread/start", {
      approvalPolicy: ui.approval.value,
      ...(cwd !== "" ? { cwd } : {}),
    });
    showThread(started.thread);
    state.model = started.model;
    say("New thread started.");
    ui.prompt.focus();
    await listThreads();
  } catch (error) {
    say(`Cannot start a thread: ${(error as Error).message}`, "error");
  }
}

async function send(): Promise<void> {
  const rpc = state.rpc;
  const text = ui.prompt.value.trim();
  if (rpc === null || state.threadId === null || text === "") return;
  ui.prompt.value = "";
  try {
    const started = await rpc.request<TurnStartResponse>("turn/start", {
      threadId: state.threadId,
      input: [{ type: "text", text, text_elements: [] }],
      ...(ui.planMode.checked ? { collaborationMode: { mode: "plan", settings: { model: state.model ?? "" } } } : {}),
    });
    setTurn(started.turn.id);
  } catch (error) {
    ui.prompt.value = text;
    say(`Cannot send: ${(error as Error).message}`, "error");
  }
}

function onNotification(method: string, params: unknown): void {
  const threadId = (params as { threadId?: string } | null)?.threadId;
  if (threadId !== undefined && threadId !== state.threadId) return;
  switch (method) {
    case "turn/started":
      setTurn((params as TurnNotification).turn.id);
      say("Working…");
      break;
    case "turn/completed": {
      const turn = (params as TurnNotification).turn;
      setTurn(null);
      say(turn.status === "completed" ? "Turn completed." : `Turn ${turn.status}${turn.error ? `: ${turn.error.message}` : ""}.`, turn.status === "failed" ? "error" : "info");
      void listThreads();
      break;
    }
    case "item/started":
      show((params as ItemStartedNotification).item);
      break;
    case "item/completed":
      show((params as ItemCompletedNotification).item);
      break;
    case "item/agentMessage/delta": {
      const { itemId, delta: text } = params as ItemDeltaNotification;
      delta(itemId, (value) => {
        if (value.type === "agentMessage") value.text += text;
      });
      break;
    }
    case "item/reasoning/summaryTextDelta": {
      const { itemId, delta: text, summaryIndex } = params as ReasoningSummaryTextDeltaNotification;
      delta(itemId, (value) => {
        if (value.type === "reasoning") value.summary[summaryIndex] = (value.summary[summaryIndex] ?? "") + text;
      });
      break;
    }
    case "item/commandExecution/outputDelta": {
      const { itemId, delta: text } = params as ItemDeltaNotification;
      delta(itemId, (value) => {
        if (value.type === "commandExecution") value.aggregatedOutput = (value.aggregatedOutput ?? "") + text;
      });
      break;
    }
    case "turn/plan/updated": {
      const update = params as TurnPlanUpdatedNotification;
      const element = render.plan(update.plan, update.explanation);
      const known = state.plans.get(update.turnId);
      if (known !== undefined) known.replaceWith(element);
      else ui.items.append(element);
      state.plans.set(update.turnId, element);
      break;
    }
    case "serverRequest/resolved": {
      const { requestId } = params as ServerRequestResolvedNotification;
      const dialog = state.dialogs.get(String(requestId));
      if (dialog !== undefined && !dialog.classList.contains("answered")) {
        for (const control of dialog.querySelectorAll("button, input")) (control as HTMLInputElement).disabled = true;
        dialog.classList.add("answered");
        dialog.append(h("p", { class: "answer", role: "status" }, "Settled elsewhere."));
      }
      break;
    }
    case "error":
      say(`Error: ${(params as { error?: { message?: string } }).error?.message ?? "unknown"}`, "error");
      break;
  }
}

function onRequest(request: ServerRequest): void {
  const rpc = state.rpc;
  if (rpc === null) return;
  const dialog = dialogFor(request, (result) => rpc.respond(request.id, result));
  if (dialog === null) {
    rpc.respondError(request.id, `the web client does not answer ${request.method}`);
    return;
  }
  dialog.dataset.method = request.method;
  state.dialogs.set(String(request.id), dialog);
  // Next to the command or file change it is about, when that is on screen.
  const itemId = (request.params as { itemId?: string } | null)?.itemId;
  const about = itemId === undefined ? undefined : state.items.get(itemId);
  if (about !== undefined) about.element.after(dialog);
  else ui.items.append(dialog);
  say("The agent is waiting for your answer.");
  dialog.querySelector<HTMLElement>("button, input")?.focus();
}

async function connect(): Promise<void> {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
  say("Connecting…");
  let rpc: Rpc;
  try {
    rpc = await Rpc.open(url, token);
  } catch (error) {
    say(`Refused: ${(error as Error).message}`, "error");
    return;
  }
  rpc.onNotification = ({ method, params }) => onNotification(method, params);
  rpc.onRequest = onRequest;
  rpc.onClose = (_code, reason) => {
    state.rpc = null;
    document.body.dataset.connection = "closed";
    ui.newThread.disabled = true;
    ui.send.disabled = true;
    say(`Disconnected${reason ? `: ${reason}` : ""}. ${token === "" ? "Open the URL the server printed, with its #token=…" : "Reload to reconnect."}`, "error");
  };
  state.rpc = rpc;
  try {
    await rpc.request("initialize", {
      clientInfo: { name: "tandem-web", title: "Tandem web client", version: "0.1.0" },
      capabilities: { experimentalApi: true },
    });
  } catch (error) {
    say(`Refused: ${(error as Error).message}`, "error");
    return;
  }
  rpc.notify("initialized");
  document.body.dataset.connection = "open";
  ui.newThread.disabled = false;
  say("Connected.");
  await listThreads();
  const threadId = fragment.get("thread");
  if (threadId !== null) await resume(threadId);
}

ui.newThread.addEventListener("click", () => void startThread());
ui.composer.addEventListener("submit", (event) => {
  event.preventDefault();
  void send();
});
ui.prompt.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    void send();
  }
});
ui.interrupt.addEventListener("click", () => {
  if (state.rpc !== null && state.threadId !== null && state.turnId !== null) {
    void state.rpc.request("turn/interrupt", { threadId: state.threadId, turnId: state.turnId }).catch(() => {});
  }
});
void connect();
