// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A file change as Codex's first-generation types describe it (tagged by `type`,
 * snake_case).
 */
export type FileChange = { "type": "add", 
/**
 * Its content.
 */
content: string, } | { "type": "delete", 
/**
 * Its former content.
 */
content: string, } | { "type": "update", 
/**
 * The change as a unified diff.
 */
unified_diff: string, 
/**
 * The new path, for a move.
 */
move_path: string | null, };
