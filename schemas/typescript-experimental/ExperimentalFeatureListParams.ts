// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `experimentalFeature/list`.
 */
export type ExperimentalFeatureListParams = { 
/**
 * Opaque cursor from a previous page's `nextCursor`.
 */
cursor?: string | null, 
/**
 * Page size (default: all).
 */
limit?: number | null, 
/**
 * A loaded thread whose settings the enablement is computed from; accepted, and the same
 * for every thread.
 */
threadId?: string | null, };
