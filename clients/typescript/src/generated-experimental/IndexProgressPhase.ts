// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A phase of a refresh. @experimental
 */
export type IndexProgressPhase = "scanning" | "indexing" | "embedding";
