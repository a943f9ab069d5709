// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `thread/section/move` (empty).
 */
export type ThreadSectionMoveResponse = Record<symbol, never>;
