// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What a `thread/attachment/updated` notification reports.
 */
export type ThreadAttachmentOperation = "created" | "deleted";
