// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadAttachmentOperation } from "./ThreadAttachmentOperation";

/**
 * `thread/attachment/updated`: an attachment was added or removed.
 */
export type ThreadAttachmentUpdatedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The attachment's kind.
 */
attachmentType: string, 
/**
 * The attachment's identity within its kind.
 */
identityKey: string, 
/**
 * The attachment's id.
 */
attachmentId: string, 
/**
 * What happened to it.
 */
operation: ThreadAttachmentOperation, };
