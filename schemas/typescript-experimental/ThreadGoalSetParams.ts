// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadGoalMutationOrigin } from "./ThreadGoalMutationOrigin";
import type { ThreadGoalStatus } from "./ThreadGoalStatus";

/**
 * Parameters of `thread/goal/set`: a new `objective` sets a new goal; without one, the
 * thread's goal is updated (and must exist).
 */
export type ThreadGoalSetParams = { 
/**
 * The thread; it must be loaded.
 */
threadId: string, 
/**
 * The objective; must not be empty. A different objective replaces the goal.
 */
objective?: string | null, 
/**
 * The new status (default `active` for a new goal).
 */
status?: ThreadGoalStatus | null, 
/**
 * The token budget (a new goal has none unless given).
 */
tokenBudget?: number | null, 
/**
 * Who asks. Accepted and not acted on: a missing origin grants nothing.
 */
origin?: ThreadGoalMutationOrigin | null, };
