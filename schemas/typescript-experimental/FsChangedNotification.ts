// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `fs/changed`: paths under a watch changed (created, written, renamed or removed). Changes
 * that follow each other closely are sent together.
 */
export type FsChangedNotification = { 
/**
 * The `watchId` of the `fs/watch`.
 */
watchId: string, 
/**
 * The absolute paths that changed, sorted, each once.
 */
changedPaths: Array<string>, };
