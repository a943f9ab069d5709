// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadReadState } from "./ThreadReadState";

/**
 * `thread/readState/changed`: a thread's read state changed, by `thread/readState/update`
 * or because a turn ended with a result that needs the owner's attention.
 */
export type ThreadReadStateChangedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * Its read state now.
 */
readState: ThreadReadState, };
