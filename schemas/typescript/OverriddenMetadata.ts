// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ConfigLayerMetadata } from "./ConfigLayerMetadata";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Which layer hides a written value, and the value in effect.
 */
export type OverriddenMetadata = { 
/**
 * A sentence saying what hides the written value.
 */
message: string, 
/**
 * The layer that sets the key.
 */
overridingLayer: ConfigLayerMetadata, 
/**
 * The value in effect.
 */
effectiveValue: JsonValue, };
