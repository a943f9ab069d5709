// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fuzzyFileSearch/sessionStop`.
 */
export type FuzzyFileSearchSessionStopParams = { 
/**
 * The session to end; an unknown one is not an error.
 */
sessionId: string, };
