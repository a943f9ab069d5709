// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadItem } from "./ThreadItem";

/**
 * One item of `thread/items/list`, with its turn.
 */
export type ThreadItemEntry = { 
/**
 * The item.
 */
item: ThreadItem, 
/**
 * The turn it belongs to.
 */
turnId: string, 
/**
 * When the item started (Unix milliseconds), as recorded.
 */
startedAtMs: number | null, 
/**
 * When the item completed (Unix milliseconds), as recorded.
 */
completedAtMs: number | null, 
/**
 * Whether the item's output was left out; always `false` in Tandem.
 */
outputDeferred: boolean, };
