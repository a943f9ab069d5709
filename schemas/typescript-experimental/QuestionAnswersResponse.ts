// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { QuestionAnswer } from "./QuestionAnswer";

/**
 * Answer to `tool/requestUserInput` and `agent/askUserQuestion`.
 */
export type QuestionAnswersResponse = { 
/**
 * One answer per answered question.
 */
answers: Array<QuestionAnswer>, };
