// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Whether a written value is the effective one.
 */
export type WriteStatus = "ok" | "okOverridden";
