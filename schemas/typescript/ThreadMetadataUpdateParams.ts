// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadMetadataGitInfoUpdateParams } from "./ThreadMetadataGitInfoUpdateParams";

/**
 * Parameters of `thread/metadata/update`. At least one of `gitInfo`, `projectId` and
 * `daybreakEnabled` must be given.
 */
export type ThreadMetadataUpdateParams = { 
/**
 * The thread (loaded or stored).
 */
threadId: string, 
/**
 * Patch of the stored Git metadata: a field left out is unchanged, `null` clears it, a
 * non-empty string replaces it.
 */
gitInfo?: ThreadMetadataGitInfoUpdateParams | null, 
/**
 * The project: left out or `null` leaves it unchanged, an empty string clears it.
 * Tandem keeps no projects, so any other value is refused as a project not found.
 */
projectId?: string | null, 
/**
 * The client's Daybreak choice for this thread, stored and reported back; `null` or left
 * out leaves it unchanged. It grants nothing.
 */
daybreakEnabled?: boolean | null, };
