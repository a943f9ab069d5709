// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Whether a match is a file or a directory.
 */
export type FuzzyFileSearchMatchType = "file" | "directory";
