// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fuzzyFileSearch`.
 */
export type FuzzyFileSearchParams = { 
/**
 * What to look for.
 */
query: string, 
/**
 * Directories to search (gitignore-aware).
 */
roots: Array<string>, 
/**
 * A later search with the same token cancels this one.
 */
cancellationToken?: string | null, };
