// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";

/**
 * Result of `thread/read`.
 */
export type ThreadReadResponse = { 
/**
 * The thread.
 */
thread: Thread, 
};
