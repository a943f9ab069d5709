// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Why a session started.
 */
export type ThreadStartSource = "startup" | "clear";
