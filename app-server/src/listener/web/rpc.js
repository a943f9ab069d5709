// GENERATED from clients/web/src by clients/web/scripts/build.mjs; do not edit.
// JSON-RPC over the browser's own WebSocket, one message per text frame, as the listener speaks it.
//
// A browser cannot set `Authorization` on a WebSocket, so the page authenticates in its first
// frame: `{"type":"authenticate","token":"…"}`, which the listener accepts from the page's own
// origin only. A refusal closes the socket with code 1008 and the reason, which `onClose` reports.
/** An error response to one of the page's requests. */
export class RpcError extends Error {
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
    }
}
/** One connection to the listener. */
export class Rpc {
    socket;
    nextId = 1;
    pending = new Map();
    onNotification = () => { };
    onRequest = () => { };
    onClose = () => { };
    constructor(socket) {
        this.socket = socket;
        socket.addEventListener("message", (event) => this.receive(event.data));
        socket.addEventListener("close", (event) => {
            const error = new Error(event.reason || `the connection closed (code ${event.code})`);
            for (const pending of this.pending.values())
                pending.reject(error);
            this.pending.clear();
            this.onClose(event.code, event.reason);
        });
    }
    /** Opens the WebSocket at `url` and sends the token as the first message. */
    static open(url, token) {
        return new Promise((resolve, reject) => {
            const socket = new WebSocket(url);
            const refused = (event) => reject(new Error(event.reason || "the server refused the connection (is this page's origin allowed?)"));
            socket.addEventListener("close", refused, { once: true });
            socket.addEventListener("open", () => {
                socket.removeEventListener("close", refused);
                socket.send(JSON.stringify({ type: "authenticate", token }));
                resolve(new Rpc(socket));
            }, { once: true });
        });
    }
    /** Sends a request and waits for its result. */
    request(method, params) {
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            this.pending.set(id, { resolve: (result) => resolve(result), reject });
            this.send({ id, method, params });
        });
    }
    /** Sends a notification. */
    notify(method, params) {
        this.send(params === undefined ? { method } : { method, params });
    }
    /** Answers a server request. */
    respond(id, result) {
        this.send({ id, result });
    }
    /** Answers a server request with an error. */
    respondError(id, message) {
        this.send({ id, error: { code: -32000, message } });
    }
    /** Whether the socket is open. */
    get open() {
        return this.socket.readyState === WebSocket.OPEN;
    }
    send(message) {
        if (this.open)
            this.socket.send(JSON.stringify(message));
    }
    receive(data) {
        if (typeof data !== "string")
            return;
        let message;
        try {
            message = JSON.parse(data);
        }
        catch {
            return;
        }
        const id = message.id;
        const method = message.method;
        if (typeof method === "string") {
            if (id === undefined)
                this.onNotification({ method, params: message.params });
            else
                this.onRequest({ id, method, params: message.params });
            return;
        }
        if (id === undefined)
            return;
        const pending = this.pending.get(id);
        if (pending === undefined)
            return;
        this.pending.delete(id);
        const error = message.error;
        if (error !== undefined)
            pending.reject(new RpcError(error.code ?? 0, error.message ?? "request failed"));
        else
            pending.resolve(message.result);
    }
}
