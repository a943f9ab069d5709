// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `history/search`. @experimental
 */
export type HistorySearchParams = { 
/**
 * Words to look for (trimmed; empty is an error).
 */
query: string, 
/**
 * How many hits; clamped to 1..`max_results` of `[history]`.
 */
limit?: number | null, 
/**
 * Hits scoring below this are dropped.
 */
minScore?: number | null, 
/**
 * How many distinct query terms a hit must contain; clamped to 1..number of terms.
 */
minShouldMatch?: number | null, 
/**
 * Restrict to one session (thread id): letters, digits and `._:@/-`, 1 to 256 characters.
 */
sessionId?: string | null, 
/**
 * Include tool calls and outputs (default from `[history] include_tool_events`).
 */
includeToolEvents?: boolean | null, 
/**
 * Leave out the history tools' own calls (default true).
 */
excludeCodexMcp?: boolean | null, };
