// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadTokenUsage } from "./ThreadTokenUsage";

/**
 * `thread/tokenUsage/updated`: sent after each model response.
 */
export type ThreadTokenUsageUpdatedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * Cumulative and last usage.
 */
tokenUsage: ThreadTokenUsage, };
