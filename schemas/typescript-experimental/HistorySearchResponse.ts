// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { HistorySearchHit } from "./HistorySearchHit";

/**
 * Result of `history/search`. @experimental
 */
export type HistorySearchResponse = { 
/**
 * Id of this query in the query and hit logs.
 */
queryId: string, 
/**
 * The trimmed query.
 */
query: string, 
/**
 * The distinct terms searched.
 */
terms: Array<string>, 
/**
 * Distinct terms dropped by the term cap.
 */
droppedTerms: number, 
/**
 * The effective limit.
 */
limit: number, 
/**
 * The effective minimum of matched terms.
 */
minShouldMatch: number, 
/**
 * `embedded` or `clickhouse`.
 */
backend: string, 
/**
 * Events in the index that belong to the caller (only those are searched).
 */
corpusEvents: number, 
/**
 * Milliseconds from tokenization to the assembled result.
 */
elapsedMs: number, 
/**
 * Hits, best first.
 */
hits: Array<HistorySearchHit>, };
