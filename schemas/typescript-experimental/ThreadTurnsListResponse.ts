// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Turn } from "./Turn";

/**
 * Result of `thread/turns/list`.
 */
export type ThreadTurnsListResponse = { 
/**
 * One page of turns.
 */
data: Array<Turn>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, 
/**
 * Cursor for paging in the other direction.
 */
backwardsCursor: string | null, };
