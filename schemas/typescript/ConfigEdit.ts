// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { MergeStrategy } from "./MergeStrategy";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * One change to the configuration file.
 */
export type ConfigEdit = { 
/**
 * Dotted path of the key in `config.toml` (`model`, `sandbox_workspace_write.network_access`).
 */
keyPath: string, 
/**
 * The JSON value to store there; `null` removes the key.
 */
value: JsonValue, 
/**
 * How the value combines with the current one.
 */
mergeStrategy: MergeStrategy, };
