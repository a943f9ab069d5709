// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/revert`.
 */
export type ThreadRevertParams = { 
/**
 * The thread (loaded or stored).
 */
threadId: string, 
/**
 * The first turn to drop: it and every later turn leave the thread's history. Files the
 * turns changed are not restored.
 */
beforeTurnId: string, };
