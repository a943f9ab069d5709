// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Rate limits as Codex reports them with `token_count`; Tandem knows none.
 */
export type RateLimitSnapshot = { 
/**
 * Limit id (`codex`).
 */
limit_id: string | null, 
/**
 * Limit name.
 */
limit_name: string | null, 
/**
 * Primary window.
 */
primary: JsonValue | null, 
/**
 * Secondary window.
 */
secondary: JsonValue | null, 
/**
 * Credits.
 */
credits: JsonValue | null, 
/**
 * Individual spend limit.
 */
individual_limit: JsonValue | null, 
/**
 * Whether spend control was reached.
 */
spend_control_reached: boolean | null, 
/**
 * Plan type.
 */
plan_type: string | null, 
/**
 * Which limit was reached.
 */
rate_limit_reached_type: string | null, };
