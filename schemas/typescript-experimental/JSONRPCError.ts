// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JSONRPCErrorError } from "./JSONRPCErrorError";
import type { RequestId } from "./RequestId";

/**
 * A failed reply to a request.
 */
export type JSONRPCError = { 
/**
 * What went wrong.
 */
error: JSONRPCErrorError, 
/**
 * The id of the request this answers.
 */
id: RequestId, };
