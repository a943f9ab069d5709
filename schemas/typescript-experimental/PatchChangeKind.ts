// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Kind of a file change (tagged by `type`).
 */
export type PatchChangeKind = { "type": "add" } | { "type": "delete" } | { "type": "update", 
/**
 * New path when the file is moved (snake_case on the wire).
 */
move_path: string | null, };
