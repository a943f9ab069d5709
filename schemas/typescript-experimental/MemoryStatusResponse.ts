// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `memory/status`: Tandem keeps no memories across threads (past conversations
 * are searched with `thread/search` and `history/search` instead), so nothing is ever ready.
 */
export type MemoryStatusResponse = { 
/**
 * Threads consolidated into memories: always 0.
 */
v2ConsolidatedThreads: number, 
/**
 * Whether memories are ready: always `false`.
 */
v2Ready: boolean, };
