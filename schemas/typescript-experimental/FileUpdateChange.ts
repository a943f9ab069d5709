// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { PatchChangeKind } from "./PatchChangeKind";

/**
 * The change to one file.
 */
export type FileUpdateChange = { 
/**
 * Absolute path of the file.
 */
path: string, 
/**
 * Add, delete or update.
 */
kind: PatchChangeKind, 
/**
 * For `add` the new content, for `delete` the old content, for `update` a unified hunk.
 */
diff: string, };
