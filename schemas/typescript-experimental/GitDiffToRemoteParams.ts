// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `gitDiffToRemote`.
 */
export type GitDiffToRemoteParams = { 
/**
 * A directory inside the repository.
 */
cwd: string, };
