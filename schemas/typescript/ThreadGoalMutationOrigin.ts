// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Who asked for a goal change: an explicit user action or the goal's own lifecycle.
 */
export type ThreadGoalMutationOrigin = "user" | "automatic";
