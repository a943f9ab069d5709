// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FileUpdateChange } from "./FileUpdateChange";

/**
 * `item/fileChange/patchUpdated`: the changes of a `fileChange` item as known so far, whole
 * (each notification replaces the previous list).
 */
export type FileChangePatchUpdatedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The `fileChange` item.
 */
itemId: string, 
/**
 * Every change of the patch known so far.
 */
changes: Array<FileUpdateChange>, };
