// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadSearchResult } from "./ThreadSearchResult";

/**
 * Result of `thread/search`.
 */
export type ThreadSearchResponse = { 
/**
 * One page of matching threads.
 */
data: Array<ThreadSearchResult>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, 
/**
 * Always `null`: pages only go forwards.
 */
backwardsCursor: string | null, };
