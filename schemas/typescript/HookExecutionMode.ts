// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Whether a hook's turn waits for it.
 */
export type HookExecutionMode = "sync" | "async";
