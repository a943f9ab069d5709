// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `threadSection/delete` (empty).
 */
export type ThreadSectionDeleteResponse = Record<symbol, never>;
