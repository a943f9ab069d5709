// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/watch`.
 */
export type FsWatchParams = { 
/**
 * Absolute path of a file or directory (a directory's direct children are watched); it
 * need not exist yet.
 */
path: string, 
/**
 * The client's name for this watch, unique on the connection; `fs/changed` and
 * `fs/unwatch` carry it.
 */
watchId: string, };
