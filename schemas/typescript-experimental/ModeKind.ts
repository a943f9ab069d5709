// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * The kind of collaboration mode.
 */
export type ModeKind = "plan" | "default";
