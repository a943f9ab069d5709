// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/loaded/list`.
 */
export type ThreadLoadedListParams = { 
/**
 * Opaque cursor from a previous page.
 */
cursor?: string | null, 
/**
 * Page size.
 */
limit?: number | null, };
