// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How far the background embedding of a repository is. @experimental
 */
export type IndexEmbeddingProgress = { 
/**
 * Chunks that have a vector (they take part in the ranking already).
 */
embeddedChunks: number, 
/**
 * Chunks in the index.
 */
totalChunks: number, };
