// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `turn/diff/updated`: the aggregated diff of the turn's file changes.
 */
export type TurnDiffUpdatedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * `git diff`-style unified diff of every file the turn changed.
 */
diff: string, };
