// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `thread/list`.
 */
export type ThreadListResponse = { 
/**
 * One page of threads, with `turns: []`.
 */
data: Array<Thread>, 
/**
 * Read state per thread; always `null` in Tandem. @experimental
 */
readStates: JsonValue | null, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, 
/**
 * Cursor for fetching newer threads.
 */
backwardsCursor: string | null, };
