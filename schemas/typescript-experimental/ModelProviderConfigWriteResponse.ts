// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ModelProviderSummary } from "./ModelProviderSummary";

/**
 * Result of `modelProvider/config/write`.
 */
export type ModelProviderConfigWriteResponse = { 
/**
 * The provider as configured after the write.
 */
provider: ModelProviderSummary, };
