// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Notifications that only name a thread (`thread/archived`, `thread/unarchived`,
 * `thread/deleted`, `thread/reverted`, `thread/closed`, `thread/goal/cleared`).
 */
export type ThreadIdNotification = { 
/**
 * The thread.
 */
threadId: string, };
