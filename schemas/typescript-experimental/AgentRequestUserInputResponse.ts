// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Answer to `agent/requestUserInput`.
 */
export type AgentRequestUserInputResponse = { 
/**
 * The user's text, given to the model as the tool output.
 */
userInput: string, };
