// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * The path of a file-system entry (tagged by `type`).
 */
export type FileSystemPath = { "type": "path", 
/**
 * The path.
 */
path: string, } | { "type": "glob_pattern", 
/**
 * The pattern.
 */
pattern: string, } | { "type": "special", 
/**
 * Which location, as the reference names it.
 */
value: JsonValue, };
