// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { StepStatus } from "./StepStatus";

/**
 * One step of a `plan_update` (Codex's `PlanItemArg`).
 */
export type PlanItem = { 
/**
 * What to do.
 */
step: string, 
/**
 * How far along it is.
 */
status: StepStatus, };
