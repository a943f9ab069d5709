// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `interruptConversation`, sent once the running turn has stopped.
 */
export type InterruptConversationResponse = { 
/**
 * Why the turn ended: `interrupted`.
 */
abortReason: string, };
