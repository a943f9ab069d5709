// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `plugin/list`: Tandem installs no plugins, so every list is empty.
 */
export type PluginListResponse = { 
/**
 * The marketplaces; always empty.
 */
marketplaces: Array<JsonValue>, 
/**
 * Marketplaces that could not be loaded; always empty.
 */
marketplaceLoadErrors: Array<JsonValue>, 
/**
 * Featured plugins; always empty.
 */
featuredPluginIds: Array<string>, };
