// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/getMetadata`.
 */
export type FsGetMetadataParams = { 
/**
 * Absolute path to inspect.
 */
path: string, };
