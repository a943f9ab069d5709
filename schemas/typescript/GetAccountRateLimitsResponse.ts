// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { RateLimitSnapshot } from "./RateLimitSnapshot";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `account/rateLimits/read`.
 */
export type GetAccountRateLimitsResponse = { 
/**
 * Whether ordinary usage is allowed; always `null` (providers do not say).
 */
ordinaryUsageAllowed: boolean | null, 
/**
 * The latest limits seen in the provider's `x-ratelimit-*` response headers; every field
 * `null` until a response carried them.
 */
rateLimits: RateLimitSnapshot, 
/**
 * The same snapshot keyed by its `limitId`; `null` until a response carried limits.
 */
rateLimitsByLimitId: { [key in string]: RateLimitSnapshot } | null, 
/**
 * Reset credits; always `null`.
 */
rateLimitResetCredits: JsonValue | null, 
/**
 * Account id; always `null`.
 */
accountId: string | null, 
/**
 * Upsell offer; always `null`.
 */
rateLimitUpsell: JsonValue | null, };
