// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Token counts.
 */
export type TokenUsageBreakdown = { 
/**
 * Input plus output tokens.
 */
totalTokens: number, 
/**
 * Prompt tokens.
 */
inputTokens: number, 
/**
 * Prompt tokens served from cache.
 */
cachedInputTokens: number, 
/**
 * Prompt tokens written to cache.
 */
cacheWriteInputTokens: number, 
/**
 * Generated tokens.
 */
outputTokens: number, 
/**
 * Generated reasoning tokens.
 */
reasoningOutputTokens: number, };
