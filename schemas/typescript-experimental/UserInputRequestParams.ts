// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { UserInputQuestion } from "./UserInputQuestion";

/**
 * Parameters of `tool/requestUserInput`: one to three questions the model asks.
 */
export type UserInputRequestParams = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The model's tool call (`call_id`) this request answers.
 */
toolCallId: string, 
/**
 * One to three questions.
 */
questions: Array<UserInputQuestion>, };
