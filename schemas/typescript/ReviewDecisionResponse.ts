// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ReviewDecision } from "./ReviewDecision";

/**
 * The answer to `applyPatchApproval` or `execCommandApproval`.
 */
export type ReviewDecisionResponse = { 
/**
 * The decision.
 */
decision: ReviewDecision, };
