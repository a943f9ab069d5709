// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ConfigLayerSource } from "./ConfigLayerSource";

/**
 * Identification of a config layer.
 */
export type ConfigLayerMetadata = { 
/**
 * Which layer.
 */
name: ConfigLayerSource, 
/**
 * Content hash of the layer (`fnv1a64:…`).
 */
version: string, };
