// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { QueuedSubmission } from "./QueuedSubmission";

/**
 * Result of `thread/queue/list`, in the order the inputs will start.
 */
export type ThreadQueueListResponse = { 
/**
 * The queued inputs of this page.
 */
data: Array<QueuedSubmission>, 
/**
 * The cursor of the next page; `null` on the last one.
 */
nextCursor: string | null, };
