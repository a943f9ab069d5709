// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `skills/list`.
 */
export type SkillsListParams = { 
/**
 * The working directories whose skills to list, one entry each; omitted or empty lists
 * the server's working directory.
 */
cwds?: Array<string> | null, 
/**
 * Accepted for compatibility: skills are read from disk at every call, so there is no
 * cache to bypass.
 */
forceReload?: boolean | null, };
