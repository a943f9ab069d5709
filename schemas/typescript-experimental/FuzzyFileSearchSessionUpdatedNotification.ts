// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FuzzyFileSearchResult } from "./FuzzyFileSearchResult";

/**
 * `fuzzyFileSearch/sessionUpdated`: the matches of a session's latest query (the empty query,
 * with no matches, once the session has started).
 */
export type FuzzyFileSearchSessionUpdatedNotification = { 
/**
 * The session.
 */
sessionId: string, 
/**
 * The query these matches are for.
 */
query: string, 
/**
 * At most 50 matches, best first, as `fuzzyFileSearch` returns them.
 */
files: Array<FuzzyFileSearchResult>, };
