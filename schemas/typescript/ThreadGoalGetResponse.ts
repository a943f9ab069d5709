// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadGoal } from "./ThreadGoal";

/**
 * Result of `thread/goal/get`.
 */
export type ThreadGoalGetResponse = { 
/**
 * The thread's goal; `null` when it has none.
 */
goal: ThreadGoal | null, };
