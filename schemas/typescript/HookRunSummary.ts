// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { HookEventName } from "./HookEventName";
import type { HookExecutionMode } from "./HookExecutionMode";
import type { HookHandlerType } from "./HookHandlerType";
import type { HookOutputEntry } from "./HookOutputEntry";
import type { HookRunStatus } from "./HookRunStatus";
import type { HookScope } from "./HookScope";
import type { HookSource } from "./HookSource";

/**
 * One run of a hook.
 */
export type HookRunSummary = { 
/**
 * `EVENT:DISPLAY_ORDER:SOURCE_PATH`, the event in kebab case (`user-prompt-submit`).
 */
id: string, 
/**
 * The event that ran it.
 */
eventName: HookEventName, 
/**
 * Its handler's kind.
 */
handlerType: HookHandlerType, 
/**
 * Whether the turn waited for it.
 */
executionMode: HookExecutionMode, 
/**
 * What the run belongs to.
 */
scope: HookScope, 
/**
 * The configuration file that defines the hook.
 */
sourcePath: string, 
/**
 * The kind of configuration the hook came from.
 */
source: HookSource, 
/**
 * The hook's position among all hooks.
 */
displayOrder: number, 
/**
 * Where the run is.
 */
status: HookRunStatus, 
/**
 * The hook's `statusMessage`.
 */
statusMessage: string | null, 
/**
 * When it started (Unix seconds).
 */
startedAt: number, 
/**
 * When it ended (Unix seconds); `null` while it runs.
 */
completedAt: number | null, 
/**
 * How long it ran, in milliseconds; `null` while it runs.
 */
durationMs: number | null, 
/**
 * What it said: context for the model, feedback, warnings, errors.
 */
entries: Array<HookOutputEntry>, };
