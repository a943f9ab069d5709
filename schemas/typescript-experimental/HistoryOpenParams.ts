// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `history/open`. @experimental
 */
export type HistoryOpenParams = { 
/**
 * The event to open (validated like `sessionId`).
 */
eventUid: string, 
/**
 * Events of context before it (default and bound from `[history]`).
 */
before?: number | null, 
/**
 * Events of context after it.
 */
after?: number | null, };
