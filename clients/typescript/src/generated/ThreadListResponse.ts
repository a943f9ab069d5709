// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";

/**
 * Result of `thread/list`.
 */
export type ThreadListResponse = { 
/**
 * One page of threads, with `turns: []`.
 */
data: Array<Thread>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, 
/**
 * Cursor for fetching newer threads.
 */
backwardsCursor: string | null, };
