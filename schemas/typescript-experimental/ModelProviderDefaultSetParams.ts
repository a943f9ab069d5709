// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `modelProvider/default/set`.
 */
export type ModelProviderDefaultSetParams = { 
/**
 * A configured provider, used by threads started without one from now on.
 */
providerId: string, };
