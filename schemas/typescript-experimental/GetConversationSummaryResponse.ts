// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ConversationSummary } from "./ConversationSummary";

/**
 * Result of `getConversationSummary`.
 */
export type GetConversationSummaryResponse = { 
/**
 * The thread's summary.
 */
summary: ConversationSummary, };
