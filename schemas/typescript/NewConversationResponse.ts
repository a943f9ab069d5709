// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ReasoningEffort } from "./ReasoningEffort";

/**
 * Result of `newConversation`.
 */
export type NewConversationResponse = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, 
/**
 * Model in effect.
 */
model: string, 
/**
 * Reasoning effort in effect, when one is set.
 */
reasoningEffort?: ReasoningEffort, 
/**
 * Absolute path of the rollout file.
 */
rolloutPath: string, };
