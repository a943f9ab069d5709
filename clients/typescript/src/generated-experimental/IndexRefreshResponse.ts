// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { IndexEmbeddingStatus } from "./IndexEmbeddingStatus";
import type { IndexRefreshStats } from "./IndexRefreshStats";

/**
 * Result of `index/refresh`. @experimental
 */
export type IndexRefreshResponse = { 
/**
 * The canonical repository root.
 */
repoRoot: string, 
/**
 * What the refresh did.
 */
stats: IndexRefreshStats, 
/**
 * Whether every chunk has an embedding, and why not.
 */
embeddingStatus: IndexEmbeddingStatus, };
