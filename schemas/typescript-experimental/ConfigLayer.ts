// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ConfigLayerSource } from "./ConfigLayerSource";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * One config layer with its raw values.
 */
export type ConfigLayer = { 
/**
 * Which layer.
 */
name: ConfigLayerSource, 
/**
 * Content hash of the layer.
 */
version: string, 
/**
 * The layer's values, as JSON.
 */
config: JsonValue, };
