// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How long a grant lasts.
 */
export type PermissionGrantScope = "turn" | "session";
