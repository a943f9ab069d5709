// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadAttachment } from "./ThreadAttachment";

/**
 * Result of `thread/attachment/list`.
 */
export type ThreadAttachmentListResponse = { 
/**
 * The attachments of this page, oldest first.
 */
data: Array<ThreadAttachment>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, };
