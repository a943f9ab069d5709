// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `fs/readFile`.
 */
export type FsReadFileResponse = { 
/**
 * The file's bytes, base64-encoded (standard alphabet, padded).
 */
dataBase64: string, };
