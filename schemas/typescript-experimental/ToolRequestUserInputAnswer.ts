// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * The answer to one question.
 */
export type ToolRequestUserInputAnswer = { 
/**
 * Chosen labels or free-form text.
 */
answers: Array<string>, };
