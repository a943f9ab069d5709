// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What a review looks at (tagged by `type`).
 */
export type ReviewTarget = { "type": "uncommittedChanges" } | { "type": "baseBranch", 
/**
 * The branch the changes would be merged into.
 */
branch: string, } | { "type": "commit", 
/**
 * The commit (any revision git accepts that names one commit).
 */
sha: string, 
/**
 * Optional human-readable label (e.g., commit subject) for UIs.
 */
title: string | null, } | { "type": "custom", 
/**
 * What to review and how, in the user's words.
 */
instructions: string, };
