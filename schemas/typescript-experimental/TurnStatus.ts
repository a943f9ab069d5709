// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Lifecycle status of a turn.
 */
export type TurnStatus = "completed" | "interrupted" | "failed" | "inProgress";
