// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { QueuedSubmission } from "./QueuedSubmission";

/**
 * Result of `thread/queue/add`.
 */
export type ThreadQueueAddResponse = { 
/**
 * The input as queued; on an idle thread it has already started its turn.
 */
queuedSubmission: QueuedSubmission, };
