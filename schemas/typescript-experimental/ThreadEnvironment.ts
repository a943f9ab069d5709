// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * An execution environment of a thread. @experimental
 */
export type ThreadEnvironment = { 
/**
 * Environment id (`local`).
 */
environmentId: string, 
/**
 * Working directory in this environment.
 */
cwd: string, 
/**
 * Workspace roots visible at runtime.
 */
runtimeWorkspaceRoots: Array<string>, };
