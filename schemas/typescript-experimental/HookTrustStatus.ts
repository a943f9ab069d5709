// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Whether a hook may run.
 */
export type HookTrustStatus = "managed" | "untrusted" | "trusted" | "modified";
