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
 * The layer's version: `sha256:` and the hex SHA-256 of its table as compact JSON with
 * sorted keys (for the user layer, of `config.toml` as it is on disk).
 */
version: string, };
