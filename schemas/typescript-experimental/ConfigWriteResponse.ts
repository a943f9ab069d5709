// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { OverriddenMetadata } from "./OverriddenMetadata";
import type { WriteStatus } from "./WriteStatus";

/**
 * Result of `config/value/write` and `config/batchWrite`.
 */
export type ConfigWriteResponse = { 
/**
 * Whether the written values are in effect.
 */
status: WriteStatus, 
/**
 * The file's version after the write (`sha256:<hex>`); pass it as `expectedVersion` of
 * the next write.
 */
version: string, 
/**
 * Absolute path of the file written.
 */
filePath: string, 
/**
 * Set with `okOverridden`: what hides the first hidden value.
 */
overriddenMetadata: OverriddenMetadata | null, };
