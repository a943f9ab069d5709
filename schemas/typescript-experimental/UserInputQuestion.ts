// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * One question of `tool/requestUserInput`.
 */
export type UserInputQuestion = { 
/**
 * The question as shown to the user.
 */
text: string, 
/**
 * The choices (labels); may be empty for a free-form question.
 */
options: Array<string>, 
/**
 * Whether a free-form answer besides the options is allowed.
 */
isOther: boolean, };
