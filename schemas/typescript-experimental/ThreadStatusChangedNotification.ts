// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadStatus } from "./ThreadStatus";

/**
 * `thread/status/changed`.
 */
export type ThreadStatusChangedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * Its new status.
 */
status: ThreadStatus, };
