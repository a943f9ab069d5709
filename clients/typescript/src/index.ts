// The public API of `@tandem/client`.

export { AppServerClient, type IndexRequestOptions } from "./client.js";
export { AsyncQueue, ReplayLog } from "./async-queue.js";
export { SERVER_REQUEST_FAILED, type RequestId, type RequestOptions } from "./connection.js";
export { AppServerError, ConnectionError, type ConnectionErrorReason, TimeoutError } from "./errors.js";
export { LineDecoder, encodeLine } from "./jsonl.js";
export {
  type CloseOptions,
  type ConnectOptions,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_COMMAND,
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  type ExitInfo,
  type SpawnOptions,
  type UrlConnectOptions,
} from "./options.js";
export type * from "./protocol.js";
export type { NotificationSink, RawNotification, TurnRun } from "./turn-run.js";
export { CLIENT_NAME, CLIENT_VERSION } from "./version.js";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  WebSocketProtocolError,
  WebSocketRefusedError,
  parseEndpoint,
  type Endpoint,
} from "./websocket.js";

/** Every type of the stable protocol surface (generated from `schemas/typescript/`). */
export type * from "./generated/index.js";

/** Every type of the experimental surface, as a namespace: `Experimental.ToolRequestUserInputParams`. */
export type * as Experimental from "./generated-experimental/index.js";
