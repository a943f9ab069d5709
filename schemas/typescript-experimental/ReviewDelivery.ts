// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Where a review runs.
 */
export type ReviewDelivery = "inline";
