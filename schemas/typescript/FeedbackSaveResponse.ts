// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `feedback/save`.
 */
export type FeedbackSaveResponse = { 
/**
 * The ZIP file written.
 */
savedPath: string, 
/**
 * The thread the bundle is about, or `no-active-thread-<uuid>` when none was named.
 */
threadId: string, 
/**
 * Always `null`: Tandem computes no prompt hash.
 */
promptHash: string | null, };
