// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ConversationSummary } from "./ConversationSummary";

/**
 * Result of `listConversations`: newest first.
 */
export type ListConversationsResponse = { 
/**
 * One page of conversations.
 */
items: Array<ConversationSummary>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, };
