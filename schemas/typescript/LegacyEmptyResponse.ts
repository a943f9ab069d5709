// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * An empty result of a legacy method.
 */
export type LegacyEmptyResponse = Record<symbol, never>;
