// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { McpServerStatus } from "./McpServerStatus";

/**
 * Result of `mcpServerStatus/list`.
 */
export type ListMcpServerStatusResponse = { 
/**
 * One entry per enabled configured server, in configuration order.
 */
data: Array<McpServerStatus>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, };
