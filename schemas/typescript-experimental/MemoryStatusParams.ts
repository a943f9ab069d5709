// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `memory/status`.
 */
export type MemoryStatusParams = { 
/**
 * Accepted; Tandem consolidates no memories.
 */
minConsolidatedThreads?: number | null, };
