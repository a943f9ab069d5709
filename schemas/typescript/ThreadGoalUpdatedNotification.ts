// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadGoal } from "./ThreadGoal";

/**
 * `thread/goal/updated`: a thread's goal was set or changed.
 */
export type ThreadGoalUpdatedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn that changed it; `null` for a client's `thread/goal/set` (and on resume).
 */
turnId: string | null, 
/**
 * The goal after the change.
 */
goal: ThreadGoal, };
