// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `gitDiffToRemote`.
 */
export type GitDiffToRemoteResponse = { 
/**
 * The remote-tracking commit the diff is against.
 */
sha: string, 
/**
 * Diff of the working tree (untracked files included) against `sha`.
 */
diff: string, };
