// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadItem } from "./ThreadItem";

/**
 * `item/started`.
 */
export type ItemStartedNotification = { 
/**
 * The item in its initial state.
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
 * When the item started (Unix milliseconds).
 */
startedAtMs: number, };
