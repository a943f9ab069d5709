// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ProviderSettingsPatch } from "./ProviderSettingsPatch";

/**
 * Parameters of `modelProvider/config/write`.
 */
export type ModelProviderConfigWriteParams = { 
/**
 * The change.
 */
settings: ProviderSettingsPatch, };
