// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Data a client keeps with a thread, identified within it by `(attachmentType,
 * identityKey)`. The server stores the payload as given and never reads a file it names.
 */
export type ThreadAttachment = { 
/**
 * Server-generated id (UUIDv7).
 */
id: string, 
/**
 * The client's kind of attachment (`file`, …).
 */
attachmentType: string, 
/**
 * What makes the attachment unique within its type on this thread (a path, a URL, …).
 */
identityKey: string, 
/**
 * The client's data, any JSON value.
 */
payload: unknown, 
/**
 * When it was added (Unix seconds).
 */
createdAt: number, };
