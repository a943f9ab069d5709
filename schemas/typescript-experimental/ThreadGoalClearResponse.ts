// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `thread/goal/clear`.
 */
export type ThreadGoalClearResponse = { 
/**
 * Whether there was a goal to clear.
 */
cleared: boolean, };
