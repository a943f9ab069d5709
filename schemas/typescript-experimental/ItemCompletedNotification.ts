// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadItem } from "./ThreadItem";

/**
 * `item/completed`: the authoritative final state of an item.
 */
export type ItemCompletedNotification = { 
/**
 * The item in its final state.
 */
item: ThreadItem, 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * Token count of the item's content, when known.
 */
contentTokenCount: number | null, 
/**
 * When the item completed (Unix milliseconds).
 */
completedAtMs: number, };
