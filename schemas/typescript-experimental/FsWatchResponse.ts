// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `fs/watch`.
 */
export type FsWatchResponse = { 
/**
 * The watched path with symbolic links resolved (as given when it does not exist).
 */
path: string, };
