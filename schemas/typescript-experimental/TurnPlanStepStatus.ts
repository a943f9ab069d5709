// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Status of a plan step.
 */
export type TurnPlanStepStatus = "pending" | "inProgress" | "completed";
