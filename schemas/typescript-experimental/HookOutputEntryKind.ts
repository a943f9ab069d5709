// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * The kind of a hook output entry.
 */
export type HookOutputEntryKind = "warning" | "stop" | "feedback" | "context" | "error";
