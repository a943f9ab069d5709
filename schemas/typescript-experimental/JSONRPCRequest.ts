// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { RequestId } from "./RequestId";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * A request whose method has not been decoded yet.
 */
export type JSONRPCRequest = { 
/**
 * The request id, echoed in the response.
 */
id: RequestId, 
/**
 * The method name, such as `thread/start`.
 */
method: string, 
/**
 * Method parameters; required (possibly `{}`) for methods whose params are a struct.
 */
params?: JsonValue, };
