// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What a hook run belongs to.
 */
export type HookScope = "thread" | "turn";
