// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadReadStateOperation } from "./ThreadReadStateOperation";

/**
 * Parameters of `thread/readState/update`.
 */
export type ThreadReadStateUpdateParams = { 
/**
 * The thread (stored; an ephemeral thread has no read state).
 */
threadId: string, 
/**
 * The revision the caller last saw; another one is refused with the current state in
 * the error's `data`.
 */
expectedRevision: string, 
/**
 * Read or unread.
 */
operation: ThreadReadStateOperation, };
