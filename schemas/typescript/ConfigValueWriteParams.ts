// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { MergeStrategy } from "./MergeStrategy";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `config/value/write`.
 */
export type ConfigValueWriteParams = { 
/**
 * Dotted path of the key in `config.toml`.
 */
keyPath: string, 
/**
 * The JSON value to store; `null` removes the key.
 */
value: JsonValue, 
/**
 * How the value combines with the current one.
 */
mergeStrategy: MergeStrategy, 
/**
 * The file to write; only the user's `config.toml` is writable, which is also the
 * default.
 */
filePath?: string | null, 
/**
 * The version the client last read (`config/read`'s user layer, or an earlier write's
 * answer); when the file has changed since, nothing is written and the request fails
 * with `configVersionConflict`.
 */
expectedVersion?: string | null, };
