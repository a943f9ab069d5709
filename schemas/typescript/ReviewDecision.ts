// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ReviewDecisionDetail } from "./ReviewDecisionDetail";
import type { ReviewDecisionName } from "./ReviewDecisionName";

/**
 * A decision on a legacy approval request: Codex's `ReviewDecision`, plus `allow` and `deny`.
 */
export type ReviewDecision = ReviewDecisionName | ReviewDecisionDetail;
