// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadGoal } from "./ThreadGoal";

/**
 * Result of `thread/goal/set`.
 */
export type ThreadGoalSetResponse = { 
/**
 * The goal after the change.
 */
goal: ThreadGoal, };
