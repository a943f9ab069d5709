// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `item/reasoning/textDelta`: raw reasoning text.
 */
export type ReasoningTextDeltaNotification = { 
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
 * Which content part it belongs to.
 */
contentIndex: number, };
