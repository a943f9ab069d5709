// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Git metadata of a thread's working directory.
 */
export type GitInfo = { 
/**
 * Commit sha of `HEAD`.
 */
sha: string | null, 
/**
 * Current branch.
 */
branch: string | null, 
/**
 * URL of the `origin` remote.
 */
originUrl: string | null, };
