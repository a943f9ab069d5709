// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/attachment/list`.
 */
export type ThreadAttachmentListParams = { 
/**
 * The thread. One that does not exist (for the caller) has no attachments.
 */
threadId: string, 
/**
 * The `nextCursor` of an earlier page.
 */
cursor?: string | null, 
/**
 * Page size (at least 1; every attachment when absent).
 */
limit?: number | null, };
