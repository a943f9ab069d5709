// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadItemEntry } from "./ThreadItemEntry";

/**
 * Result of `thread/items/list`.
 */
export type ThreadItemsListResponse = { 
/**
 * One page of items.
 */
data: Array<ThreadItemEntry>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, 
/**
 * Cursor of the items before this page, for the opposite `sortDirection`; `null` when
 * the page is empty.
 */
backwardsCursor: string | null, };
