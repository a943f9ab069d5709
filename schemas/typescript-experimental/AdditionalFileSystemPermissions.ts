// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FileSystemSandboxEntry } from "./FileSystemSandboxEntry";

/**
 * File-system access asked for or granted.
 */
export type AdditionalFileSystemPermissions = { 
/**
 * Paths to read (the older form of `entries`).
 */
read?: Array<string> | null, 
/**
 * Paths to write (the older form of `entries`).
 */
write?: Array<string> | null, 
/**
 * Entries with their access mode.
 */
entries?: Array<FileSystemSandboxEntry> | null, 
/**
 * How deep a glob entry is expanded (Tandem grants no glob entries).
 */
globScanMaxDepth?: number | null, };
