// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadGoalStatus } from "./ThreadGoalStatus";

/**
 * The objective a thread works toward, kept with the thread (its rollout) across restarts.
 */
export type ThreadGoal = { 
/**
 * The thread the goal belongs to.
 */
threadId: string, 
/**
 * What the thread works toward.
 */
objective: string, 
/**
 * Where the goal stands.
 */
status: ThreadGoalStatus, 
/**
 * The most tokens the goal may use, if the client set a budget.
 */
tokenBudget: number | null, 
/**
 * Tokens used toward the goal. Tandem does not count them yet: always 0.
 */
tokensUsed: number, 
/**
 * Seconds spent on the goal. Tandem does not count them yet: always 0.
 */
timeUsedSeconds: number, 
/**
 * When the goal was set (Unix seconds).
 */
createdAt: number, 
/**
 * When the goal last changed (Unix seconds).
 */
updatedAt: number, };
