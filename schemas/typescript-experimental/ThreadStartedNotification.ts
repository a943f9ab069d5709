// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";

/**
 * `thread/started`: a thread was created (start or fork).
 */
export type ThreadStartedNotification = { 
/**
 * The new thread.
 */
thread: Thread, };
