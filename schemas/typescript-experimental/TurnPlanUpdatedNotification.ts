// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { TurnPlanStep } from "./TurnPlanStep";

/**
 * `turn/plan/updated`: the agent's plan changed (`update_plan`).
 */
export type TurnPlanUpdatedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * Why the plan changed.
 */
explanation: string | null, 
/**
 * The steps.
 */
plan: Array<TurnPlanStep>, };
