// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Usage of one rate-limit window.
 */
export type RateLimitWindow = { 
/**
 * Percent of the limit used: `(limit - remaining) / limit * 100`.
 */
usedPercent: number, 
/**
 * Length of the window in minutes; `null` (providers do not say).
 */
windowDurationMins: number | null, 
/**
 * When the window resets (Unix seconds), from the `x-ratelimit-reset-*` duration.
 */
resetsAt: number | null, };
