// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/goal/get`.
 */
export type ThreadGoalGetParams = { 
/**
 * The thread; it must be loaded.
 */
threadId: string, };
