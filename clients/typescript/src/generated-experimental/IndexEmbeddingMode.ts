// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How embeddings were used (the MCP tools' `mode_used`). @experimental
 */
export type IndexEmbeddingMode = "skip" | "optional" | "required";
