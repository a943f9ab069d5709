// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { HookRunSummary } from "./HookRunSummary";

/**
 * `hook/started` and `hook/completed`: a hook run of a thread's turn.
 */
export type HookRunNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn the run belongs to.
 */
turnId: string | null, 
/**
 * The run: `running` in `hook/started`, its outcome in `hook/completed`.
 */
run: HookRunSummary, };
