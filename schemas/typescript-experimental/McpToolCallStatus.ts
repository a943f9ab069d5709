// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Lifecycle status of an `mcpToolCall` item.
 */
export type McpToolCallStatus = "inProgress" | "completed" | "failed";
