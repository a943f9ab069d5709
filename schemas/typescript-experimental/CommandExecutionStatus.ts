// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Lifecycle status of a command item.
 */
export type CommandExecutionStatus = "inProgress" | "completed" | "failed" | "declined";
