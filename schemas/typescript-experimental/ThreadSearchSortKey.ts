// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What `thread/search` orders by when not by relevance.
 */
export type ThreadSearchSortKey = "created_at" | "updated_at" | "recency_at";
