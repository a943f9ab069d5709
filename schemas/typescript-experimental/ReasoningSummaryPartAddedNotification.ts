// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `item/reasoning/summaryPartAdded`: a new summary part begins.
 */
export type ReasoningSummaryPartAddedNotification = { 
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
 * Index of the new part.
 */
summaryIndex: number, };
