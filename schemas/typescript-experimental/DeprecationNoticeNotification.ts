// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `deprecationNotice`: the client used something deprecated.
 */
export type DeprecationNoticeNotification = { 
/**
 * One-line summary.
 */
summary: string, 
/**
 * More detail.
 */
details: string | null, };
