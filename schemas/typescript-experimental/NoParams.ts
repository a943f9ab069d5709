// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * The params of a method that takes none: `params` may be omitted, or sent as `{}`.
 */
export type NoParams = Record<symbol, never>;
