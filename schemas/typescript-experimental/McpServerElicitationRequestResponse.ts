// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { McpServerElicitationAction } from "./McpServerElicitationAction";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `mcpServer/elicitation/request`.
 */
export type McpServerElicitationRequestResponse = { 
/**
 * What the user chose.
 */
action: McpServerElicitationAction, 
/**
 * The form's data, for `accept`.
 */
content: JsonValue | null, 
/**
 * `_meta` passed back to the server.
 */
_meta: JsonValue | null, };
