// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Deprecated personality setting; accepted and echoed, with no effect on style.
 */
export type Personality = "none" | "friendly" | "pragmatic";
