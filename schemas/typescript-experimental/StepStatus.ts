// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Status of a plan step, snake_case as Codex spells it (the thread API's
 * `turn/plan/updated` says `inProgress`; this event says `in_progress`).
 */
export type StepStatus = "pending" | "in_progress" | "completed";
