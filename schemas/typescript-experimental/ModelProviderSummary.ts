// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ProviderSettings } from "./ProviderSettings";

/**
 * One configured model provider.
 */
export type ModelProviderSummary = { 
/**
 * The provider's id (its key under `[model_providers]`).
 */
id: string, 
/**
 * Its display name.
 */
name: string, 
/**
 * Whether this client may change any of its settings with `modelProvider/config/write`.
 */
canEdit: boolean, 
/**
 * Its endpoint; `null` for the built-in `openai` provider.
 */
baseUrl: string | null, 
/**
 * Its settings.
 */
settings: ProviderSettings, };
