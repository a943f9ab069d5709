// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `skills/extraRoots/set`.
 */
export type SkillsExtraRootsSetParams = { 
/**
 * Absolute directories searched (recursively) for user skills besides
 * `$TANDEM_HOME/skills/`, replacing the connection's previous list; each must lie within
 * the connection's file roots.
 */
extraRoots: Array<string>, };
