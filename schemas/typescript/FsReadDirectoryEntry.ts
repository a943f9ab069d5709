// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * One child of a directory listed by `fs/readDirectory`.
 */
export type FsReadDirectoryEntry = { 
/**
 * The child's name (not a path).
 */
fileName: string, 
/**
 * Whether the child leads to a directory (a symbolic link is followed).
 */
isDirectory: boolean, 
/**
 * Whether the child leads to a regular file (a symbolic link is followed).
 */
isFile: boolean, };
