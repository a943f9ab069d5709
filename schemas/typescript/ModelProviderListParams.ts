// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `modelProvider/list` (none).
 */
export type ModelProviderListParams = Record<symbol, never>;
