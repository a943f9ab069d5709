// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `modelProvider/capabilities/read` (none).
 */
export type ModelProviderCapabilitiesReadParams = Record<symbol, never>;
