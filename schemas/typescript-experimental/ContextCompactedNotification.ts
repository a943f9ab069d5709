// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `thread/compacted`: a thread's history was compacted, by `thread/compact/start` or
 * automatically during a turn. It follows the `contextCompaction` item's `item/completed`,
 * which carries the same news; it is kept for clients written before that item existed.
 */
export type ContextCompactedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn that compacted it.
 */
turnId: string, };
