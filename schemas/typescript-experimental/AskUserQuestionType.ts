// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How many options an [`AskUserQuestion`] takes.
 */
export type AskUserQuestionType = "single_choice" | "multi_choice";
