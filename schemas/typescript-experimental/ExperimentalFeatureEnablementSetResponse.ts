// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `experimentalFeature/enablement/set`.
 */
export type ExperimentalFeatureEnablementSetResponse = { 
/**
 * The flags this request changed; always empty, since Tandem has no runtime flags.
 */
enablement: { [key in string]: boolean }, };
