// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * The `error` member of a failed reply.
 */
export type JSONRPCErrorError = { 
/**
 * Error code; `-32600` for every request-level error, `-32603` for internal failures,
 * `-32001` when the server is overloaded.
 */
code: number, 
/**
 * Human-readable description of the error.
 */
message: string, 
/**
 * Optional structured detail.
 */
data?: JsonValue, };
