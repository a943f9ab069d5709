// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/compact/start`.
 */
export type ThreadCompactStartParams = { 
/**
 * The thread to compact; it must be loaded and idle.
 */
threadId: string, };
