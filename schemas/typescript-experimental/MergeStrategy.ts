// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How a written value combines with what the file already holds at its key.
 */
export type MergeStrategy = "replace" | "upsert";
