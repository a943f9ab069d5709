// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * What an MCP server returned for a call (its `CallToolResult`).
 */
export type McpToolCallResult = { 
/**
 * The content blocks, as the server sent them.
 */
content: Array<JsonValue>, 
/**
 * The structured result, when the server sent one.
 */
structuredContent: JsonValue | null, 
/**
 * The result's `_meta`, when the server sent one.
 */
_meta: JsonValue | null, };
