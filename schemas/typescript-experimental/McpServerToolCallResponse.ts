// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `mcpServer/tool/call`: the server's `CallToolResult`, cut to
 * `mcp_tool_output_max_bytes`.
 */
export type McpServerToolCallResponse = { 
/**
 * The content blocks, as the server sent them.
 */
content: Array<JsonValue>, 
/**
 * The structured result, when the server sent one.
 */
structuredContent: JsonValue | null, 
/**
 * Whether the server reports the call as failed.
 */
isError: boolean | null, 
/**
 * The result's `_meta`, when the server sent one.
 */
_meta: JsonValue | null, };
