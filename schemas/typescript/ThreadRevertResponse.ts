// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";

/**
 * Result of `thread/revert`.
 */
export type ThreadRevertResponse = { 
/**
 * The thread after the revert; `turns` is always empty (page the kept ones with
 * `thread/turns/list`).
 */
thread: Thread, 
/**
 * A `thread/turns/list` cursor for `sortDirection: "desc"` whose first page starts with
 * the last kept turn; `null` when no turn is kept.
 */
turnsBackwardsCursor: string | null, 
/**
 * A `thread/items/list` cursor for `sortDirection: "desc"` whose first page starts with
 * the last kept item; `null` when no item is kept.
 */
itemsBackwardsCursor: string | null, };
