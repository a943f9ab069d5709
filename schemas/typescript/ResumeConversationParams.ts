// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { NewConversationParams } from "./NewConversationParams";

/**
 * Parameters of `resumeConversation`: load a stored conversation by id or rollout path.
 * Legacy.
 */
export type ResumeConversationParams = { 
/**
 * The conversation (thread) id.
 */
conversationId?: string | null, 
/**
 * Or the rollout file's path.
 */
path?: string | null, 
/**
 * Settings for the resumed conversation (`model`, `cwd`, `approvalPolicy`, `sandbox`…).
 */
overrides?: NewConversationParams | null, };
