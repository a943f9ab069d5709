// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/readFile`.
 */
export type FsReadFileParams = { 
/**
 * Absolute path of a regular file.
 */
path: string, };
