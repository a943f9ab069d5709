// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { TurnError } from "./TurnError";

/**
 * `error`: a turn hit an error (before its failing `turn/completed`, or while retrying).
 */
export type ErrorNotification = { 
/**
 * What went wrong.
 */
error: TurnError, 
/**
 * Whether the server retries.
 */
willRetry: boolean, 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, };
