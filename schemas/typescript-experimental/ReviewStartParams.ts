// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ReviewDelivery } from "./ReviewDelivery";
import type { ReviewTarget } from "./ReviewTarget";

/**
 * Parameters of `review/start`.
 */
export type ReviewStartParams = { 
/**
 * The thread to review in (loaded, owned by the caller, with no running turn).
 */
threadId: string, 
/**
 * What to review.
 */
target: ReviewTarget, 
/**
 * Reviews run inline on the supplied thread. Omit this field or pass `inline`. To review
 * on a separate thread, start a thread first and use its id.
 */
delivery?: ReviewDelivery | null, };
