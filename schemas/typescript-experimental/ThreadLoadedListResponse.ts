// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `thread/loaded/list`.
 */
export type ThreadLoadedListResponse = { 
/**
 * Ids of the threads loaded in this server.
 */
data: Array<string>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, };
