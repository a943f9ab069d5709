// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SortDirection } from "./SortDirection";
import type { ThreadItemOutputDeferral } from "./ThreadItemOutputDeferral";
import type { ThreadItemsListCursor } from "./ThreadItemsListCursor";

/**
 * Parameters of `thread/items/list`.
 */
export type ThreadItemsListParams = { 
/**
 * The thread whose items to list.
 */
threadId: string, 
/**
 * Only the items of this turn; every turn's when absent.
 */
turnId?: string | null, 
/**
 * Where the page starts: the `nextCursor` (or `backwardsCursor`) of an earlier page, or an
 * item of the turn named by `turnId` (the page then starts just after it, in
 * `sortDirection`).
 */
cursor?: ThreadItemsListCursor | null, 
/**
 * Page size (at least 1; every item when absent).
 */
limit?: number | null, 
/**
 * Order (default `asc`, oldest first).
 */
sortDirection?: SortDirection | null, 
/**
 * Which outputs the client would fetch separately. Accepted; Tandem returns every item
 * whole, so `outputDeferred` is always `false`.
 */
deferOutput?: ThreadItemOutputDeferral | null, };
