// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `externalAgentConfig/detect`.
 */
export type ExternalAgentConfigDetectParams = { 
/**
 * Repositories to look in (at most 64); each must lie within the connection's file roots.
 */
cwds?: Array<string> | null, 
/**
 * Whether to look in the user's home directory (`~/.claude/`, `~/.claude.json`).
 */
includeHome?: boolean | null, 
/**
 * Accepted for compatibility; sessions are not imported.
 */
maxSessionAgeDays?: number | null, 
/**
 * Accepted for compatibility; sessions are not imported.
 */
maxSessions?: number | null, 
/**
 * Accepted for compatibility; the source is always the `CLAUDE.md` / `.mcp.json` / `.claude/` layout.
 */
migrationSource?: string | null, 
/**
 * Accepted for compatibility and ignored.
 */
source?: string | null, };
