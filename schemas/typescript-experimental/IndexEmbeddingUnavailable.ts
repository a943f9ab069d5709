// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Why embeddings are not ready (the MCP tools' `reason`, same spelling). @experimental
 */
export type IndexEmbeddingUnavailable = "missing_api_key" | "embedding_query_failed" | "model_not_installed" | "indexing";
