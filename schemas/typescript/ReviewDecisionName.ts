// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A decision without data.
 */
export type ReviewDecisionName = "allow" | "deny" | "approved" | "approved_for_session" | "approved_mcp_policy_amendment" | "denied" | "timed_out" | "abort";
