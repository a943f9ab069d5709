// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Lifecycle status of a file-change item.
 */
export type PatchApplyStatus = "inProgress" | "completed" | "failed" | "declined";
