// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadAttachment } from "./ThreadAttachment";
import type { ThreadAttachmentAddOutcome } from "./ThreadAttachmentAddOutcome";

/**
 * Result of `thread/attachment/add`.
 */
export type ThreadAttachmentAddResponse = { 
/**
 * Whether it was created now or already there.
 */
outcome: ThreadAttachmentAddOutcome, 
/**
 * The attachment as stored.
 */
attachment: ThreadAttachment, };
