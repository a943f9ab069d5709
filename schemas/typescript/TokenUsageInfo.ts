// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { TokenUsage } from "./TokenUsage";

/**
 * Token usage of a session.
 */
export type TokenUsageInfo = { 
/**
 * Cumulative usage.
 */
total_token_usage: TokenUsage, 
/**
 * Usage of the last model response.
 */
last_token_usage: TokenUsage, 
/**
 * The model's context window in tokens, when known.
 */
model_context_window: number | null, };
