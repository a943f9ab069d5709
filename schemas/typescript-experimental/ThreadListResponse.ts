// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";
import type { ThreadReadState } from "./ThreadReadState";

/**
 * Result of `thread/list`.
 */
export type ThreadListResponse = { 
/**
 * One page of threads, with `turns: []`.
 */
data: Array<Thread>, 
/**
 * Read state of each listed thread that has one (stored threads), by thread id.
 * @experimental
 */
readStates: { [key in string]: ThreadReadState } | null, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, 
/**
 * Cursor for fetching newer threads.
 */
backwardsCursor: string | null, };
