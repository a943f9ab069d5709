// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `warning`.
 */
export type WarningNotification = { 
/**
 * The thread concerned, if any.
 */
threadId: string | null, 
/**
 * The warning.
 */
message: string, };
