// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/createDirectory`.
 */
export type FsCreateDirectoryParams = { 
/**
 * Absolute path of the directory to create.
 */
path: string, 
/**
 * Whether missing parents are created too (default `true`); an existing directory is
 * then not an error.
 */
recursive?: boolean | null, };
