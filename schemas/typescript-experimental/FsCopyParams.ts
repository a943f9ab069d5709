// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/copy`.
 */
export type FsCopyParams = { 
/**
 * Absolute path of the file or directory to copy.
 */
sourcePath: string, 
/**
 * Absolute path of the copy.
 */
destinationPath: string, 
/**
 * Must be `true` to copy a directory (with its contents); ignored for a file.
 */
recursive?: boolean | null, };
