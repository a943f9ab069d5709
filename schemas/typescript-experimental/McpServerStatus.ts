// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { McpAuthStatus } from "./McpAuthStatus";
import type { McpServerStartupState } from "./McpServerStartupState";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * One MCP server as the agent sees it.
 */
export type McpServerStatus = { 
/**
 * The server's name under `[mcp_servers]`.
 */
name: string, 
/**
 * Its tools (after `enabled_tools`/`disabled_tools`) by tool name, each as the server's
 * `tools/list` entry; empty until the server is ready.
 */
tools: { [key in string]: JsonValue }, 
/**
 * Its resources; Tandem does not read resources, so always empty.
 */
resources: Array<JsonValue>, 
/**
 * Its resource templates; always empty in Tandem.
 */
resourceTemplates: Array<JsonValue>, 
/**
 * How the server authenticates.
 */
authStatus: McpAuthStatus, 
/**
 * Tandem extension: where its startup stands; `null` when no thread runs it yet.
 */
startupStatus: McpServerStartupState | null, 
/**
 * Tandem extension: the last startup or connection error, if any.
 */
error: string | null, };
