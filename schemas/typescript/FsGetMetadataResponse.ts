// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `fs/getMetadata`. A symbolic link is followed for everything but `isSymlink`.
 */
export type FsGetMetadataResponse = { 
/**
 * Whether the path leads to a directory.
 */
isDirectory: boolean, 
/**
 * Whether the path leads to a regular file.
 */
isFile: boolean, 
/**
 * Whether the path itself is a symbolic link.
 */
isSymlink: boolean, 
/**
 * Creation time in Unix milliseconds, `0` where the file system does not record it.
 */
createdAtMs: number, 
/**
 * Last modification time in Unix milliseconds, `0` where unavailable.
 */
modifiedAtMs: number, };
