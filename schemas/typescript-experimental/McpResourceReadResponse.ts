// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `mcpServer/resource/read`.
 */
export type McpResourceReadResponse = { 
/**
 * The resource's contents as the server sent them (`{uri, mimeType?, text}` or
 * `{uri, mimeType?, blob}`), cut to `mcp_tool_output_max_bytes`: a text cut short ends
 * with a note saying how much was cut, and a blob that does not fit is replaced by a
 * text saying so.
 */
contents: Array<JsonValue>, 
/**
 * Always `null`: Tandem scopes no resource to an app.
 */
originCallId: string | null, };
