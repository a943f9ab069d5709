// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JSONRPCError } from "./JSONRPCError";
import type { JSONRPCNotification } from "./JSONRPCNotification";
import type { JSONRPCRequest } from "./JSONRPCRequest";
import type { JSONRPCResponse } from "./JSONRPCResponse";

/**
 * Any message on the wire, in either direction.
 */
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse | JSONRPCError;
