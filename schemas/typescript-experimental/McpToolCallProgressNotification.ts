// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `item/mcpToolCall/progress`: an MCP server reported progress on a tool call of an
 * `mcpToolCall` item (its `notifications/progress`).
 */
export type McpToolCallProgressNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The `mcpToolCall` item.
 */
itemId: string, 
/**
 * The server's progress message, or its progress as `progress/total` when it sent no
 * message; cut to a bounded length.
 */
message: string, };
