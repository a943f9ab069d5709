// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ConfigLayer } from "./ConfigLayer";
import type { ConfigLayerMetadata } from "./ConfigLayerMetadata";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `config/read`.
 */
export type ConfigReadResponse = { 
/**
 * The effective config with its snake_case config.toml keys.
 */
config: JsonValue, 
/**
 * Where each dotted key's value came from.
 */
origins: { [key in string]: ConfigLayerMetadata }, 
/**
 * Each layer, lowest precedence first; omitted unless `includeLayers`.
 */
layers?: Array<ConfigLayer>, };
