// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `agent/requestUserInput`: the model asks for free-form text.
 */
export type AgentRequestUserInputParams = { 
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
 * What the model asks.
 */
prompt: string, };
