// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `item/plan/delta`: text appended to the `plan` item of a plan-mode turn, read from the
 * model's `<proposed_plan>` block as it streams. The completed item's `text` is the plan as
 * finally parsed; the deltas are for display while it arrives.
 */
export type PlanDeltaNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The `plan` item (`<turn id>-plan`).
 */
itemId: string, 
/**
 * Text appended to the plan.
 */
delta: string, };
