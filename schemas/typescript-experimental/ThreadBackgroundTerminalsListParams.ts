// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/backgroundTerminals/list`.
 */
export type ThreadBackgroundTerminalsListParams = { 
/**
 * The thread (loaded).
 */
threadId: string, 
/**
 * The `nextCursor` of the previous page (an offset, as decimal digits).
 */
cursor?: string | null, 
/**
 * Page size; `null` or `0` lists every running command.
 */
limit?: number | null, };
