// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";

/**
 * Result of `thread/unarchive`.
 */
export type ThreadUnarchiveResponse = { 
/**
 * The restored thread.
 */
thread: Thread, };
