// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `archiveConversation`. Legacy.
 */
export type ArchiveConversationParams = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, 
/**
 * The rollout path `listConversations` gave; checked against the conversation's.
 */
rolloutPath?: string | null, };
