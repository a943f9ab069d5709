// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * One hook run's reason in a `hookPrompt` item.
 */
export type HookPromptFragment = { 
/**
 * The reason, as the model receives it.
 */
text: string, 
/**
 * The hook run that gave it (`hook/completed`'s `run.id`).
 */
hookRunId: string, };
