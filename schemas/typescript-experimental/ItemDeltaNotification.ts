// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Text deltas of an item (`item/agentMessage/delta`, `item/commandExecution/outputDelta`).
 */
export type ItemDeltaNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The item.
 */
itemId: string, 
/**
 * The text to append.
 */
delta: string, };
