// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `experimentalFeature/enablement/set`.
 */
export type ExperimentalFeatureEnablementSetParams = { 
/**
 * Flags to turn on or off for this process, by name; flags left out keep their state.
 */
enablement: { [key in string]: boolean }, };
