// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What a command does, as Codex's first-generation types describe it (tagged by `type`).
 */
export type ParsedCommand = { "type": "read", 
/**
 * The (sub)command.
 */
cmd: string, 
/**
 * File name.
 */
name: string, 
/**
 * File path.
 */
path: string, } | { "type": "list_files", 
/**
 * The (sub)command.
 */
cmd: string, 
/**
 * Directory listed.
 */
path: string | null, } | { "type": "search", 
/**
 * The (sub)command.
 */
cmd: string, 
/**
 * Search query.
 */
query: string | null, 
/**
 * Where it searches.
 */
path: string | null, } | { "type": "unknown", 
/**
 * The (sub)command.
 */
cmd: string, };
