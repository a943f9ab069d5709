// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { McpServerStartupFailureReason } from "./McpServerStartupFailureReason";
import type { McpServerStartupState } from "./McpServerStartupState";

/**
 * Parameters of `mcpServer/startupStatus/updated`.
 */
export type McpServerStatusUpdatedNotification = { 
/**
 * The thread whose server this is.
 */
threadId: string | null, 
/**
 * The server's name under `[mcp_servers]`.
 */
name: string, 
/**
 * The new state.
 */
status: McpServerStartupState, 
/**
 * Why it failed, for `failed`.
 */
error: string | null, 
/**
 * A known failure reason; always `null` in Tandem.
 */
failureReason: McpServerStartupFailureReason | null, };
