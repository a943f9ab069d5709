// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExperimentalFeature } from "./ExperimentalFeature";

/**
 * Result of `experimentalFeature/list`.
 */
export type ExperimentalFeatureListResponse = { 
/**
 * The flags of this page; Tandem has none, so always empty.
 */
data: Array<ExperimentalFeature>, 
/**
 * Cursor of the next page; `null` on the last.
 */
nextCursor: string | null, };
