// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { TokenUsageBreakdown } from "./TokenUsageBreakdown";

/**
 * Token usage of a thread: cumulative and for the last model response.
 */
export type ThreadTokenUsage = { 
/**
 * Cumulative usage over the thread.
 */
total: TokenUsageBreakdown, 
/**
 * Usage of the last model response.
 */
last: TokenUsageBreakdown, 
/**
 * The model's context window in tokens, when known.
 */
modelContextWindow: number | null, };
