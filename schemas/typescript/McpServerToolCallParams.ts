// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `mcpServer/tool/call`.
 */
export type McpServerToolCallParams = { 
/**
 * A loaded thread of the caller whose server to call.
 */
threadId: string, 
/**
 * The server's name in `[mcp_servers]`.
 */
server: string, 
/**
 * The tool's name on the server.
 */
tool: string, 
/**
 * The tool's arguments: a JSON object, or omitted.
 */
arguments?: JsonValue | null, 
/**
 * Accepted for compatibility; not forwarded to the server.
 */
_meta?: JsonValue | null, };
