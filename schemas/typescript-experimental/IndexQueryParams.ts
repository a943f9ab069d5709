// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `index/query`. @experimental
 */
export type IndexQueryParams = { 
/**
 * Plain-language description of what to find (trimmed; empty is an error).
 */
query: string, 
/**
 * Results to return; default 8, clamped to 1..=200.
 */
limit?: number | null, 
/**
 * Include filters such as `src/**` or `*.rs` (default: `file_globs` of `[query_project_index]`).
 */
fileGlobs?: Array<string> | null, 
/**
 * Blend of lexical and embedding scores, 0.0 (lexical only) to 1.0 (embedding only);
 * outside that range is an error. Default: `default_alpha` of `[query_project_index]`.
 */
alpha?: number | null, 
/**
 * Repository to search, absolute or relative to the server's working directory (default:
 * that directory); once `..` and symbolic links are resolved it must lie inside that
 * directory or one listed in the server's `[query_project_index] roots`, or the request
 * fails with `-32600`.
 */
repoRoot?: string | null, 
/**
 * Embedding model for this call (default: `embedding_model` of `[query_project_index]`).
 */
embeddingModel?: string | null, };
