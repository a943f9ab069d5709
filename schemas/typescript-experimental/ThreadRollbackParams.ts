// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/rollback`.
 */
export type ThreadRollbackParams = { 
/**
 * The thread; it must be loaded and idle.
 */
threadId: string, 
/**
 * How many turns to drop from the end; at least 1. More turns than the thread has drops
 * them all.
 */
numTurns: number, };
