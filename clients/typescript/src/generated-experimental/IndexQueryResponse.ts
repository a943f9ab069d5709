// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { IndexEmbeddingStatus } from "./IndexEmbeddingStatus";
import type { IndexQueryResult } from "./IndexQueryResult";
import type { IndexRefreshStats } from "./IndexRefreshStats";

/**
 * Result of `index/query`: the index was refreshed incrementally first. @experimental
 */
export type IndexQueryResponse = { 
/**
 * The canonical repository root.
 */
repoRoot: string, 
/**
 * The trimmed query.
 */
query: string, 
/**
 * The effective limit.
 */
limit: number, 
/**
 * The effective blend.
 */
alpha: number, 
/**
 * The embedding model of this call.
 */
embeddingModel: string, 
/**
 * Whether embeddings ranked this answer, and why not.
 */
embeddingStatus: IndexEmbeddingStatus, 
/**
 * What the refresh before the answer did.
 */
refresh: IndexRefreshStats, 
/**
 * Ranked snippets, best first.
 */
results: Array<IndexQueryResult>, };
