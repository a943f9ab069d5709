// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * An availability notice for a model.
 */
export type ModelAvailabilityNux = { 
/**
 * The notice.
 */
message: string, };
