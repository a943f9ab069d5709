// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/attachment/remove`.
 */
export type ThreadAttachmentRemoveParams = { 
/**
 * The thread (loaded or stored, with at least one turn).
 */
threadId: string, 
/**
 * The kind of the attachment to remove.
 */
attachmentType: string, 
/**
 * Its identity within the type. Removing one that is not there succeeds.
 */
identityKey: string, };
