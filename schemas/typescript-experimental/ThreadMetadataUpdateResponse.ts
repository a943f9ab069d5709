// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";

/**
 * Result of `thread/metadata/update`.
 */
export type ThreadMetadataUpdateResponse = { 
/**
 * The thread after the update, without turns.
 */
thread: Thread, };
