// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/queue/list`.
 */
export type ThreadQueueListParams = { 
/**
 * The thread (loaded).
 */
threadId: string, 
/**
 * The `nextCursor` of the previous page (an offset, as decimal digits).
 */
cursor?: string | null, 
/**
 * Page size; `null` or `0` lists every queued input.
 */
limit?: number | null, };
