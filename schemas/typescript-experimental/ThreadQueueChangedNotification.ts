// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `thread/queue/changed`: a thread's queue changed (an input was added, or one left it to
 * start its turn); read it again with `thread/queue/list`.
 */
export type ThreadQueueChangedNotification = { 
/**
 * The thread.
 */
threadId: string, };
