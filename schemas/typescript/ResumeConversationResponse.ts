// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { EventMsg } from "./EventMsg";

/**
 * Result of `resumeConversation`.
 */
export type ResumeConversationResponse = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, 
/**
 * Model in effect.
 */
model: string, 
/**
 * The stored history as Codex events (user and agent messages).
 */
initialMessages: Array<EventMsg> | null, 
/**
 * Absolute path of the rollout file.
 */
rolloutPath: string, };
