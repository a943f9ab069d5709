// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/archive`, `thread/unarchive`, `thread/delete` and `thread/unsubscribe`.
 */
export type ThreadIdParams = { 
/**
 * The thread.
 */
threadId: string, };
