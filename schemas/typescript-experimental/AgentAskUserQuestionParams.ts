// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AskUserQuestion } from "./AskUserQuestion";

/**
 * Parameters of `agent/askUserQuestion`: choice questions from the model tool
 * `ask_user_question`.
 */
export type AgentAskUserQuestionParams = { 
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
 * One to four questions.
 */
questions: Array<AskUserQuestion>, };
