// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Where a hook run is.
 */
export type HookRunStatus = "running" | "completed" | "failed" | "blocked" | "stopped";
