// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `thread/name/updated`.
 */
export type ThreadNameUpdatedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * Its new name.
 */
threadName: string | null, };
