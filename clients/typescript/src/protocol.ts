// The protocol surface a connection is typed by, and the types derived from its method tables.
//
// Everything here is computed from the generated maps (`ClientRequestMap`, `ServerRequestMap`,
// `ServerNotificationMap`), so a method added to the protocol reaches the client by regeneration
// alone. Nothing in this file names a method's params or response type by hand.

import type * as Experimental from "./generated-experimental/index.js";
import type * as Stable from "./generated/index.js";

/**
 * The three method tables that type a connection.
 * Every surface extends the stable one, so the client's own machinery (handshake, turns) works on all of them.
 */
export interface Protocol {
  /** Client → server requests: method → `{ params, response }`. */
  clientRequests: Stable.ClientRequestMap;
  /** Server → client requests: method → `{ params, response }`. */
  serverRequests: Stable.ServerRequestMap;
  /** Server → client notifications: method → `{ params }`. */
  serverNotifications: Stable.ServerNotificationMap;
}

/** The stable surface: what every connection may use (`schemas/typescript/`). */
export interface StableProtocol extends Protocol {
  /** Stable client → server requests. */
  clientRequests: Stable.ClientRequestMap;
  /** Stable server → client requests. */
  serverRequests: Stable.ServerRequestMap;
  /** Stable server → client notifications. */
  serverNotifications: Stable.ServerNotificationMap;
}

/**
 * The experimental surface, available to connections that set `capabilities.experimentalApi: true`
 * (for example `item/tool/requestUserInput` and `turn/start.collaborationMode`).
 */
export interface ExperimentalProtocol extends Protocol {
  /** Experimental client → server requests (a superset of the stable ones). */
  clientRequests: Experimental.ClientRequestMap;
  /** Experimental server → client requests (a superset of the stable ones). */
  serverRequests: Experimental.ServerRequestMap;
  /** Experimental server → client notifications (a superset of the stable ones). */
  serverNotifications: Experimental.ServerNotificationMap;
}

/** The `K` member of `T`, or `never` when `T` has none; keeps generic lookups well-typed. */
type Member<T, K extends string> = T extends { [key in K]: infer V } ? V : never;

/** The entry for method `M` in method table `T`, or `never`. */
type Entry<T, M extends string> = M extends keyof T ? T[M] : never;

/** A client → server request method of surface `P`. */
export type RequestMethod<P extends Protocol> = Extract<keyof P["clientRequests"], string>;

/** The params of client → server request `M`. */
export type RequestParams<P extends Protocol, M extends string> = Member<Entry<P["clientRequests"], M>, "params">;

/** The result of client → server request `M`. */
export type RequestResult<P extends Protocol, M extends string> = Member<Entry<P["clientRequests"], M>, "response">;

/** A server → client request method of surface `P`. */
export type ServerRequestMethod<P extends Protocol> = Extract<keyof P["serverRequests"], string>;

/** The params of server → client request `M`. */
export type ServerRequestParams<P extends Protocol, M extends string> = Member<Entry<P["serverRequests"], M>, "params">;

/** What the client answers to server → client request `M`. */
export type ServerRequestResult<P extends Protocol, M extends string> = Member<Entry<P["serverRequests"], M>, "response">;

/** A server → client notification method of surface `P`. */
export type NotificationMethod<P extends Protocol> = Extract<keyof P["serverNotifications"], string>;

/** The params of server notification `M`. */
export type NotificationParams<P extends Protocol, M extends string> = Member<Entry<P["serverNotifications"], M>, "params">;

/** Any server notification of surface `P`, discriminated by `method`. */
export type NotificationOf<P extends Protocol = StableProtocol> = {
  [M in NotificationMethod<P>]: { method: M; params: NotificationParams<P, M> };
}[NotificationMethod<P>];

/**
 * Answers server request `M`: gets its params, returns the response (or a promise of it).
 * Throwing (or rejecting) answers the server with a JSON-RPC error instead.
 */
export type ServerRequestHandler<P extends Protocol, M extends ServerRequestMethod<P>> = (
  params: ServerRequestParams<P, M>,
  request: ServerRequestContext<M>,
) => ServerRequestResult<P, M> | Promise<ServerRequestResult<P, M>>;

/** Where a server request came from, for handlers that need more than its params. */
export interface ServerRequestContext<M extends string = string> {
  /** The server's request id (integers counting from 0 per connection). */
  id: number | string;
  /** The request's method. */
  method: M;
}

/**
 * The handler type for server request `M` when surface `P` has it, otherwise an explanatory string
 * type, so that using an experimental server request on a stable client fails to compile with a hint.
 */
export type HandlerFor<P extends Protocol, M extends string> =
  M extends ServerRequestMethod<P>
    ? ServerRequestHandler<P, M>
    : `${M} is experimental: connect with capabilities: { experimentalApi: true }`;

/** The params of `initialize`. */
export type InitializeParamsOf<P extends Protocol = StableProtocol> = RequestParams<P, "initialize">;

/** The result of `initialize`. */
export type InitializeResponseOf<P extends Protocol = StableProtocol> = RequestResult<P, "initialize">;

/** The `clientInfo` sent with `initialize`. */
export type ClientInfoOf<P extends Protocol = StableProtocol> = InitializeParamsOf<P>["clientInfo"];

/** The `capabilities` sent with `initialize`. */
export type InitializeCapabilitiesOf<P extends Protocol = StableProtocol> = NonNullable<
  InitializeParamsOf<P>["capabilities"]
>;

/** The params of `turn/start`. */
export type TurnStartParamsOf<P extends Protocol = StableProtocol> = RequestParams<P, "turn/start">;

/** One piece of user input for `turn/start`. */
export type UserInputOf<P extends Protocol = StableProtocol> = TurnStartParamsOf<P>["input"][number];

/** A turn, as carried by `turn/started` and `turn/completed`. */
export type TurnOf<P extends Protocol = StableProtocol> = NotificationParams<P, "turn/completed">["turn"];
