// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `getConversationSummary` (legacy): the thread, by rollout path or by id.
 */
export type GetConversationSummaryParams = { 
/**
 * Absolute path of the rollout file (`thread.path`).
 */
rolloutPath: string, } | { 
/**
 * Thread id.
 */
conversationId: string, };
