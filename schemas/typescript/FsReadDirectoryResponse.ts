// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FsReadDirectoryEntry } from "./FsReadDirectoryEntry";

/**
 * Result of `fs/readDirectory`.
 */
export type FsReadDirectoryResponse = { 
/**
 * The directory's direct children, in the order the file system lists them.
 */
entries: Array<FsReadDirectoryEntry>, };
