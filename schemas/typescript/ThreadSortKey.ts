// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Sort key of `thread/list` (snake_case on the wire).
 */
export type ThreadSortKey = "created_at" | "updated_at" | "recency_at" | "section_position";
