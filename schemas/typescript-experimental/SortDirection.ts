// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Sort direction for paginated lists.
 */
export type SortDirection = "asc" | "desc";
