// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Network access for an externally sandboxed process.
 */
export type NetworkAccess = "restricted" | "enabled";
