// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";
import type { ThreadReadState } from "./ThreadReadState";

/**
 * Result of `thread/read`.
 */
export type ThreadReadResponse = { 
/**
 * The thread.
 */
thread: Thread, 
/**
 * The thread's read state; `null` for a thread that is not stored (ephemeral, or not
 * yet written). @experimental
 */
readState: ThreadReadState | null, };
