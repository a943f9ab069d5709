// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `mcpServer/resource/read`.
 */
export type McpResourceReadParams = { 
/**
 * A loaded thread of the caller whose server to read from; omitted, the most recently
 * started of the caller's loaded threads.
 */
threadId?: string | null, 
/**
 * The server's name in `[mcp_servers]`.
 */
server: string, 
/**
 * The resource's URI.
 */
uri: string, 
/**
 * Accepted for compatibility; not forwarded to the server.
 */
_meta?: JsonValue | null, };
