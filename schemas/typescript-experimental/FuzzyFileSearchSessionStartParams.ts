// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fuzzyFileSearch/sessionStart`.
 */
export type FuzzyFileSearchSessionStartParams = { 
/**
 * The client's name for the session, unique on the connection; starting a session under a
 * name in use replaces that session.
 */
sessionId: string, 
/**
 * Absolute directories to search (gitignore-aware), within the connection's file roots;
 * at least one.
 */
roots: Array<string>, };
