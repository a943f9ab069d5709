// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";

/**
 * Result of `thread/rollback`.
 */
export type ThreadRollbackResponse = { 
/**
 * The thread after the rollback, with its remaining turns (`itemsView: full`). Files the
 * dropped turns changed are not reverted.
 */
thread: Thread, };
