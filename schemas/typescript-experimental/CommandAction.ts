// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What a command does, as parsed from its text (tagged by `type`).
 */
export type CommandAction = { "type": "read", 
/**
 * The (sub)command.
 */
command: string, 
/**
 * File name.
 */
name: string, 
/**
 * File path.
 */
path: string, } | { "type": "listFiles", 
/**
 * The (sub)command.
 */
command: string, 
/**
 * Directory listed.
 */
path: string | null, } | { "type": "search", 
/**
 * The (sub)command.
 */
command: string, 
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
command: string, };
