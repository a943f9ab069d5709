// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { InputItem } from "./InputItem";

/**
 * Parameters of `sendUserMessage`: start a turn with the conversation's settings. Legacy.
 */
export type SendUserMessageParams = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, 
/**
 * The user's input.
 */
items: Array<InputItem>, };
