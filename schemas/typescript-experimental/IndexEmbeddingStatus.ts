// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { IndexEmbeddingMode } from "./IndexEmbeddingMode";
import type { IndexEmbeddingProgress } from "./IndexEmbeddingProgress";
import type { IndexEmbeddingUnavailable } from "./IndexEmbeddingUnavailable";

/**
 * Whether embedding-backed ranking is active. @experimental
 */
export type IndexEmbeddingStatus = { 
/**
 * How embeddings were used.
 */
modeUsed: IndexEmbeddingMode, 
/**
 * Whether embedding-backed ranking is active for this answer.
 */
ready: boolean, 
/**
 * Why not, when not ready and a reason is known; `null` otherwise (also when embeddings
 * were not wanted: `alpha` 0 or model `none`).
 */
reason: IndexEmbeddingUnavailable | null, 
/**
 * Details of the reason (the missing variable, file or the provider's error); `null` when
 * ready.
 */
detail: string | null, 
/**
 * With reason `indexing`: how far the background embedding of the repository is;
 * `null` otherwise.
 */
progress: IndexEmbeddingProgress | null, };
