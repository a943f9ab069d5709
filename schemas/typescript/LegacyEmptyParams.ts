// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * An empty params object of a legacy method.
 */
export type LegacyEmptyParams = Record<symbol, never>;
