// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/read`: a thread's metadata (and turns) without loading it.
 */
export type ThreadReadParams = { 
/**
 * Thread to read.
 */
threadId: string, 
/**
 * Fill `thread.turns` (every item).
 */
includeTurns?: boolean | null, };
