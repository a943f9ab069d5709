// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ModelProviderSummary } from "./ModelProviderSummary";

/**
 * Result of `modelProvider/list`.
 */
export type ModelProviderListResponse = { 
/**
 * Every provider, in id order.
 */
data: Array<ModelProviderSummary>, 
/**
 * The provider new threads use.
 */
defaultProviderId: string, 
/**
 * Whether this client may choose another default (`modelProvider/default/set`).
 */
canChangeDefault: boolean, };
