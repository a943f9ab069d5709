// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `fs/unwatch`.
 */
export type FsUnwatchParams = { 
/**
 * The `watchId` of an earlier `fs/watch`; an unknown one is not an error.
 */
watchId: string, };
