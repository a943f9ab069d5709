// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AskUserQuestionType } from "./AskUserQuestionType";

/**
 * One question of `agent/askUserQuestion`.
 */
export type AskUserQuestion = { 
/**
 * Whether one or several options may be chosen.
 */
type: AskUserQuestionType, 
/**
 * The question as shown to the user.
 */
text: string, 
/**
 * The choices (labels), two or more.
 */
options: Array<string>, 
/**
 * Whether a free-form answer besides the options is allowed.
 */
allowOther: boolean, };
