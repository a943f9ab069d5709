// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * The answer to one question.
 */
export type QuestionAnswer = { 
/**
 * Index of the question in the request (0-based).
 */
questionIndex: number, 
/**
 * The chosen option labels, or the free-form text when "other" was chosen.
 */
selected: Array<string>, };
