// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `item/reasoning/summaryTextDelta`.
 */
export type ReasoningSummaryTextDeltaNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The reasoning item.
 */
itemId: string, 
/**
 * The text to append.
 */
delta: string, 
/**
 * Which summary part it belongs to.
 */
summaryIndex: number, };
