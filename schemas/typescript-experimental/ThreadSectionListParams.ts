// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `threadSection/list`: the caller's sections, "Pinned" first, then in the
 * order they were created.
 */
export type ThreadSectionListParams = { 
/**
 * A previous page's `nextCursor`; an unknown one gives an empty page.
 */
cursor?: string | null, 
/**
 * Page size (at least 1); omitted means every section.
 */
limit?: number | null, };
