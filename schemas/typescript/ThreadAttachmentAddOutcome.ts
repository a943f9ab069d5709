// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Whether `thread/attachment/add` created the attachment or found it already there.
 */
export type ThreadAttachmentAddOutcome = "created" | "existing";
