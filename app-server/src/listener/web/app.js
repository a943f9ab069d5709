// GENERATED from clients/web/src by clients/web/scripts/build.mjs; do not edit.
// The reference web client of `tandem app-server --listen ws://… --web`.
//
// The token comes from the URL's fragment (`#token=…`), which the browser never sends to a
// server; the thread on screen is kept there too (`&thread=…`), so that a reload resumes it.
import { dialogFor } from "./dialogs.js";
import * as render from "./render.js";
import { h } from "./render.js";
import { Rpc } from "./rpc.js";
function byId(id) {
    const element = document.getElementById(id);
    if (element === null)
        throw new Error(`the page lacks #${id}`);
    return element;
}
const ui = {
    status: byId("status"),
    threads: byId("threads"),
    newThread: byId("new-thread"),
    approval: byId("approval"),
    cwd: byId("cwd"),
    title: byId("thread-title"),
    items: byId("items"),
    composer: byId("composer"),
    prompt: byId("prompt"),
    send: byId("send"),
    planMode: byId("plan-mode"),
    interrupt: byId("interrupt"),
};
const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get("token") ?? "";
const state = {
    rpc: null,
    threadId: null,
    model: null,
    turnId: null,
    items: new Map(),
    plans: new Map(),
    dialogs: new Map(),
};
function say(text, kind = "info") {
    ui.status.textContent = text;
    ui.status.dataset.kind = kind;
}
/** Keeps the token and the thread in the fragment, so that a reload comes back here. */
function remember(threadId) {
    const next = new URLSearchParams();
    if (token !== "")
        next.set("token", token);
    if (threadId !== null)
        next.set("thread", threadId);
    history.replaceState(null, "", `#${next.toString()}`);
}
function setTurn(turnId) {
    state.turnId = turnId;
    ui.interrupt.hidden = turnId === null;
    ui.items.setAttribute("aria-busy", String(turnId !== null));
    document.body.dataset.turn = turnId === null ? "idle" : "running";
}
function show(value) {
    const element = render.item(value);
    element.dataset.itemId = value.id;
    const known = state.items.get(value.id);
    if (known !== undefined) {
        element.dataset.deltas = String(known.deltas);
        if (known.element.tagName === "DETAILS" && element.tagName === "DETAILS") {
            element.open = known.element.open;
        }
        known.element.replaceWith(element);
        state.items.set(value.id, { value, element, deltas: known.deltas });
    }
    else {
        ui.items.append(element);
        state.items.set(value.id, { value, element, deltas: 0 });
    }
}
function delta(itemId, apply) {
    const shown = state.items.get(itemId);
    if (shown === undefined)
        return;
    apply(shown.value);
    shown.deltas += 1;
    show(shown.value);
}
function showThread(thread) {
    state.threadId = thread.id;
    state.model = thread.model;
    state.items.clear();
    state.plans.clear();
    state.dialogs.clear();
    ui.items.replaceChildren();
    ui.title.textContent = thread.name ?? (thread.preview || "New thread");
    let running = null;
    for (const turn of thread.turns) {
        for (const value of turn.items)
            show(value);
        if (turn.status === "inProgress")
            running = turn.id;
    }
    setTurn(running);
    ui.prompt.disabled = false;
    ui.send.disabled = false;
    remember(thread.id);
    for (const entry of ui.threads.querySelectorAll("button")) {
        entry.setAttribute("aria-current", String(entry.dataset.threadId === thread.id));
    }
}
async function listThreads() {
    const rpc = state.rpc;
    if (rpc === null)
        return;
    const list = await rpc.request("thread/list", { limit: 50, sortKey: "updated_at" });
    const current = list.data.find((thread) => thread.id === state.threadId);
    if (current !== undefined)
        ui.title.textContent = current.name ?? (current.preview || "New thread");
    ui.threads.replaceChildren(...list.data.map((thread) => {
        const when = new Date(thread.updatedAt * 1000).toLocaleString();
        const entry = h("button", { type: "button", "data-thread-id": thread.id, "aria-current": String(thread.id === state.threadId) }, h("span", { class: "preview" }, thread.name ?? (thread.preview || "(empty thread)")), h("small", {}, when));
        entry.addEventListener("click", () => void resume(thread.id));
        return h("li", {}, entry);
    }));
}
async function leaveThread() {
    if (state.rpc !== null && state.threadId !== null) {
        await state.rpc.request("thread/unsubscribe", { threadId: state.threadId }).catch(() => { });
    }
}
async function resume(threadId) {
    const rpc = state.rpc;
    if (rpc === null)
        return;
    if (threadId !== state.threadId)
        await leaveThread();
    say("Resuming the thread…");
    try {
        const resumed = await rpc.request("thread/resume", { threadId });
        showThread(resumed.thread);
        state.model = resumed.model;
        say("Thread resumed.");
    }
    catch (error) {
        say(`Cannot resume the thread: ${error.message}`, "error");
    }
}
async function startThread() {
    const rpc = state.rpc;
    if (rpc === null)
        return;
    await leaveThread();
    const cwd = ui.cwd.value.trim();
    try {
        const started = await rpc.request("thread/start", {
            approvalPolicy: ui.approval.value,
            ...(cwd !== "" ? { cwd } : {}),
        });
        showThread(started.thread);
        state.model = started.model;
        say("New thread started.");
        ui.prompt.focus();
        await listThreads();
    }
    catch (error) {
        say(`Cannot start a thread: ${error.message}`, "error");
    }
}
async function send() {
    const rpc = state.rpc;
    const text = ui.prompt.value.trim();
    if (rpc === null || state.threadId === null || text === "")
        return;
    ui.prompt.value = "";
    try {
        const started = await rpc.request("turn/start", {
            threadId: state.threadId,
            input: [{ type: "text", text, text_elements: [] }],
            ...(ui.planMode.checked ? { collaborationMode: { mode: "plan", settings: { model: state.model ?? "" } } } : {}),
        });
        setTurn(started.turn.id);
    }
    catch (error) {
        ui.prompt.value = text;
        say(`Cannot send: ${error.message}`, "error");
    }
}
function onNotification(method, params) {
    const threadId = params?.threadId;
    if (threadId !== undefined && threadId !== state.threadId)
        return;
    switch (method) {
        case "turn/started":
            setTurn(params.turn.id);
            say("Working…");
            break;
        case "turn/completed": {
            const turn = params.turn;
            setTurn(null);
            say(turn.status === "completed" ? "Turn completed." : `Turn ${turn.status}${turn.error ? `: ${turn.error.message}` : ""}.`, turn.status === "failed" ? "error" : "info");
            void listThreads();
            break;
        }
        case "item/started":
            show(params.item);
            break;
        case "item/completed":
            show(params.item);
            break;
        case "item/agentMessage/delta": {
            const { itemId, delta: text } = params;
            delta(itemId, (value) => {
                if (value.type === "agentMessage")
                    value.text += text;
            });
            break;
        }
        case "item/reasoning/summaryTextDelta": {
            const { itemId, delta: text, summaryIndex } = params;
            delta(itemId, (value) => {
                if (value.type === "reasoning")
                    value.summary[summaryIndex] = (value.summary[summaryIndex] ?? "") + text;
            });
            break;
        }
        case "item/commandExecution/outputDelta": {
            const { itemId, delta: text } = params;
            delta(itemId, (value) => {
                if (value.type === "commandExecution")
                    value.aggregatedOutput = (value.aggregatedOutput ?? "") + text;
            });
            break;
        }
        case "turn/plan/updated": {
            const update = params;
            const element = render.plan(update.plan, update.explanation);
            const known = state.plans.get(update.turnId);
            if (known !== undefined)
                known.replaceWith(element);
            else
                ui.items.append(element);
            state.plans.set(update.turnId, element);
            break;
        }
        case "serverRequest/resolved": {
            const { requestId } = params;
            const dialog = state.dialogs.get(String(requestId));
            if (dialog !== undefined && !dialog.classList.contains("answered")) {
                for (const control of dialog.querySelectorAll("button, input"))
                    control.disabled = true;
                dialog.classList.add("answered");
                dialog.append(h("p", { class: "answer", role: "status" }, "Settled elsewhere."));
            }
            break;
        }
        case "error":
            say(`Error: ${params.error?.message ?? "unknown"}`, "error");
            break;
    }
}
function onRequest(request) {
    const rpc = state.rpc;
    if (rpc === null)
        return;
    const dialog = dialogFor(request, (result) => rpc.respond(request.id, result));
    if (dialog === null) {
        rpc.respondError(request.id, `the web client does not answer ${request.method}`);
        return;
    }
    dialog.dataset.method = request.method;
    state.dialogs.set(String(request.id), dialog);
    // Next to the command or file change it is about, when that is on screen.
    const itemId = request.params?.itemId;
    const about = itemId === undefined ? undefined : state.items.get(itemId);
    if (about !== undefined)
        about.element.after(dialog);
    else
        ui.items.append(dialog);
    say("The agent is waiting for your answer.");
    dialog.querySelector("button, input")?.focus();
}
async function connect() {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
    say("Connecting…");
    let rpc;
    try {
        rpc = await Rpc.open(url, token);
    }
    catch (error) {
        say(`Refused: ${error.message}`, "error");
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
    }
    catch (error) {
        say(`Refused: ${error.message}`, "error");
        return;
    }
    rpc.notify("initialized");
    document.body.dataset.connection = "open";
    ui.newThread.disabled = false;
    say("Connected.");
    await listThreads();
    const threadId = fragment.get("thread");
    if (threadId !== null)
        await resume(threadId);
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
        void state.rpc.request("turn/interrupt", { threadId: state.threadId, turnId: state.turnId }).catch(() => { });
    }
});
void connect();
