// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FileSystemAccessMode } from "./FileSystemAccessMode";
import type { FileSystemPath } from "./FileSystemPath";

/**
 * One file-system entry asked for or granted.
 */
export type FileSystemSandboxEntry = { 
/**
 * What may be done there.
 */
access: FileSystemAccessMode, 
/**
 * Where.
 */
path: FileSystemPath, };
