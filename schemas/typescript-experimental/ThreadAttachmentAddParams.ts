// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/attachment/add`.
 */
export type ThreadAttachmentAddParams = { 
/**
 * The thread (loaded or stored, with at least one turn).
 */
threadId: string, 
/**
 * The kind of attachment; not empty, at most 1 KiB.
 */
attachmentType: string, 
/**
 * Its identity within the type; not empty, at most 1 KiB.
 */
identityKey: string, 
/**
 * The data to keep; at most 64 KiB once serialized.
 */
payload: unknown, };
