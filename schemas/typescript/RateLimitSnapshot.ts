// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CreditsSnapshot } from "./CreditsSnapshot";
import type { PlanType } from "./PlanType";
import type { RateLimitWindow } from "./RateLimitWindow";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Rate limits of one limit (one provider in Tandem).
 */
export type RateLimitSnapshot = { 
/**
 * Which limit: the provider id.
 */
limitId: string | null, 
/**
 * Display name of the limit: the provider's name.
 */
limitName: string | null, 
/**
 * Model slug of the limit; always `null`.
 */
normalModelSlug: string | null, 
/**
 * The request limit (`x-ratelimit-limit-requests`, `-remaining-requests`,
 * `-reset-requests`).
 */
primary: RateLimitWindow | null, 
/**
 * The token limit (`x-ratelimit-limit-tokens`, `-remaining-tokens`, `-reset-tokens`).
 */
secondary: RateLimitWindow | null, 
/**
 * Credits; always `null`.
 */
credits: CreditsSnapshot | null, 
/**
 * Individual spend limit; always `null`.
 */
individualLimit: JsonValue | null, 
/**
 * Whether a spend control was reached; always `null`.
 */
spendControlReached: boolean | null, 
/**
 * Plan type; always `null`.
 */
planType: PlanType | null, 
/**
 * Which limit was reached; always `null`.
 */
rateLimitReachedType: JsonValue | null, };
