// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Lifecycle status of a dynamic tool call item.
 */
export type DynamicToolCallStatus = "inProgress" | "completed" | "failed";
