// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/writeFile`.
 */
export type FsWriteFileParams = { 
/**
 * Absolute path of the file to create or replace; its directory must exist.
 */
path: string, 
/**
 * The new contents, base64-encoded (standard alphabet).
 */
dataBase64: string, };
