// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fuzzyFileSearch/sessionUpdate`.
 */
export type FuzzyFileSearchSessionUpdateParams = { 
/**
 * A session started by `fuzzyFileSearch/sessionStart`.
 */
sessionId: string, 
/**
 * The new query; its matches follow as `fuzzyFileSearch/sessionUpdated`, and a search
 * still running for an earlier query of the session is cancelled.
 */
query: string, };
