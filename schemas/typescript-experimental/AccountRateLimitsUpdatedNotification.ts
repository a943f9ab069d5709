// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { RateLimitSnapshot } from "./RateLimitSnapshot";

/**
 * Params of `account/rateLimits/updated`: a model response carried new rate limits.
 */
export type AccountRateLimitsUpdatedNotification = { 
/**
 * The limits.
 */
rateLimits: RateLimitSnapshot, };
