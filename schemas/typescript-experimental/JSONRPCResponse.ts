// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { RequestId } from "./RequestId";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * A successful reply to a request.
 */
export type JSONRPCResponse = { 
/**
 * The id of the request this answers.
 */
id: RequestId, 
/**
 * The method's result.
 */
result: JsonValue, };
