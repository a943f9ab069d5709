// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { TurnPlanStepStatus } from "./TurnPlanStepStatus";

/**
 * One step of a plan.
 */
export type TurnPlanStep = { 
/**
 * What to do.
 */
step: string, 
/**
 * How far along it is.
 */
status: TurnPlanStepStatus, };
