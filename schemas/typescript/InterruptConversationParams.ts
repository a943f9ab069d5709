// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `interruptConversation`. Legacy.
 */
export type InterruptConversationParams = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, };
