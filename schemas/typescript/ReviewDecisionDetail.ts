// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * A decision with data.
 */
export type ReviewDecisionDetail = { "approved_execpolicy_amendment": { 
/**
 * The argv prefix.
 */
proposed_execpolicy_amendment: Array<string>, } } | { "denied": { 
/**
 * Why, for the model.
 */
rejection: string, } } | { "network_policy_amendment": { 
/**
 * The amendment (`{host, action}`).
 */
network_policy_amendment: JsonValue, } };
