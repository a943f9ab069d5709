// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ConfigEdit } from "./ConfigEdit";

/**
 * Parameters of `config/batchWrite`: several edits applied together, all or none.
 */
export type ConfigBatchWriteParams = { 
/**
 * The edits, applied in order.
 */
edits: Array<ConfigEdit>, 
/**
 * The file to write; only the user's `config.toml` is writable, which is also the
 * default.
 */
filePath?: string | null, 
/**
 * The version the client last read; see `config/value/write`.
 */
expectedVersion?: string | null, 
/**
 * Accepted for compatibility. Threads already loaded keep the settings they started
 * with either way; threads started after the write use the new file.
 */
reloadUserConfig?: boolean, };
