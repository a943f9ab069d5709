// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Token counts (snake_case).
 */
export type TokenUsage = { 
/**
 * Prompt tokens.
 */
input_tokens: number, 
/**
 * Prompt tokens served from cache.
 */
cached_input_tokens: number, 
/**
 * Prompt tokens written to cache.
 */
cache_write_input_tokens: number, 
/**
 * Generated tokens.
 */
output_tokens: number, 
/**
 * Generated reasoning tokens.
 */
reasoning_output_tokens: number, 
/**
 * Input plus output tokens.
 */
total_tokens: number, };
