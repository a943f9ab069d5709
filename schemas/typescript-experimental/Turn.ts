// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadItem } from "./ThreadItem";
import type { TurnError } from "./TurnError";
import type { TurnItemsView } from "./TurnItemsView";
import type { TurnStatus } from "./TurnStatus";

/**
 * One user request and the agent's work on it.
 */
export type Turn = { 
/**
 * Turn id (UUIDv7).
 */
id: string, 
/**
 * Id of the root turn; equal to `id` for ordinary turns.
 */
rootTurnId: string | null, 
/**
 * Items, as far as `itemsView` says they are loaded.
 */
items: Array<ThreadItem>, 
/**
 * How much of `items` is filled in.
 */
itemsView: TurnItemsView, 
/**
 * Lifecycle status.
 */
status: TurnStatus, 
/**
 * Why the turn failed, for `failed` turns.
 */
error: TurnError | null, 
/**
 * Start time (Unix seconds); `null` in the `turn/start` response.
 */
startedAt: number | null, 
/**
 * Completion time (Unix seconds).
 */
completedAt: number | null, 
/**
 * Duration in milliseconds.
 */
durationMs: number | null, };
