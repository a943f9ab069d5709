// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `configWarning`: a problem with the configuration that did not stop the server.
 */
export type ConfigWarningNotification = { 
/**
 * One-line summary.
 */
summary: string, 
/**
 * More detail.
 */
details: string | null, };
