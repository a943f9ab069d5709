// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadGoalMutationOrigin } from "./ThreadGoalMutationOrigin";

/**
 * Parameters of `thread/goal/clear`.
 */
export type ThreadGoalClearParams = { 
/**
 * The thread; it must be loaded.
 */
threadId: string, 
/**
 * Who asks. Accepted and not acted on.
 */
origin?: ThreadGoalMutationOrigin | null, };
