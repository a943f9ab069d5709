// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/readDirectory`.
 */
export type FsReadDirectoryParams = { 
/**
 * Absolute path of the directory to list.
 */
path: string, };
