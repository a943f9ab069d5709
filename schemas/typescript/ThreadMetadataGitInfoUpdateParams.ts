// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A patch of a thread's Git metadata (`thread/metadata/update`).
 */
export type ThreadMetadataGitInfoUpdateParams = { 
/**
 * The commit: left out keeps it, `null` clears it, a non-empty string replaces it.
 */
sha?: string | null, 
/**
 * The branch: left out keeps it, `null` clears it, a non-empty string replaces it.
 */
branch?: string | null, 
/**
 * The origin URL: left out keeps it, `null` clears it, a non-empty string replaces it.
 */
originUrl?: string | null, };
