// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/remove`.
 */
export type FsRemoveParams = { 
/**
 * Absolute path of the file or directory to remove.
 */
path: string, 
/**
 * Whether a directory is removed with its contents (default `true`); without it only an
 * empty directory can be removed.
 */
recursive?: boolean | null, 
/**
 * Whether a missing path is success (default `true`).
 */
force?: boolean | null, };
