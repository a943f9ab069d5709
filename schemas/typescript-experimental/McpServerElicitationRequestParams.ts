// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `mcpServer/elicitation/request`: an MCP server asks the user something in
 * the middle of a tool call (or Tandem asks whether an MCP tool may run).
 */
export type McpServerElicitationRequestParams = { 
/**
 * The thread of the call.
 */
threadId: string, 
/**
 * The turn of the call, when one is running.
 */
turnId: string | null, 
/**
 * The server's name under `[mcp_servers]`.
 */
serverName: string, } & ({ "mode": "form", 
/**
 * The server's `_meta`; for Tandem's own approval questions
 * `{"tandem/approvalKind": "mcpToolCall", "tool": …, "arguments": …}`.
 */
_meta?: JsonValue, 
/**
 * What the user is asked.
 */
message: string, 
/**
 * The restricted JSON Schema (`{type: "object", properties, required?}`) of the
 * expected answer; no properties for a plain accept/decline question.
 */
requestedSchema: JsonValue, } | { "mode": "url", 
/**
 * The server's `_meta`.
 */
_meta?: JsonValue, 
/**
 * Why the user should go there.
 */
message: string, 
/**
 * Where to go.
 */
url: string, 
/**
 * The server's id of this elicitation.
 */
elicitationId: string, });
