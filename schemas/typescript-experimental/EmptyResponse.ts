// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * An empty result, `{}`.
 */
export type EmptyResponse = Record<symbol, never>;
