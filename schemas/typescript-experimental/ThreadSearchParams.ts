// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SortDirection } from "./SortDirection";
import type { ThreadSearchSortKey } from "./ThreadSearchSortKey";
import type { ThreadSourceKind } from "./ThreadSourceKind";

/**
 * Parameters of `thread/search`.
 */
export type ThreadSearchParams = { 
/**
 * Words to look for in the threads' messages, reasoning, commands and file changes (BM25
 * over the history index); empty is an error.
 */
searchTerm: string, 
/**
 * Accepted; threads are found whether archived or not.
 */
archived?: boolean | null, 
/**
 * Accepted; every thread found belongs to the caller.
 */
currentAccountOnly?: boolean | null, 
/**
 * The `nextCursor` of an earlier page.
 */
cursor?: string | null, 
/**
 * Accepted and ignored: Tandem has no attached threads.
 */
includeAttachedThreads?: boolean | null, 
/**
 * Page size (at least 1; default 20).
 */
limit?: number | null, 
/**
 * Order of a `sortKey` (default `desc`); relevance is always best first.
 */
sortDirection?: SortDirection | null, 
/**
 * Order by this time instead of by relevance (the best match of each thread).
 */
sortKey?: ThreadSearchSortKey | null, 
/**
 * Accepted and ignored.
 */
sourceKinds?: Array<ThreadSourceKind> | null, };
