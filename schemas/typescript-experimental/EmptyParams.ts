// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Empty params, `{}`; may be omitted.
 */
export type EmptyParams = Record<symbol, never>;
