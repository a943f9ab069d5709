// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `index/refresh`. @experimental
 */
export type IndexRefreshParams = { 
/**
 * Repository to index, absolute or relative to the server's working directory (default:
 * that directory); once `..` and symbolic links are resolved it must lie inside that
 * directory or one listed in the server's `[query_project_index] roots`, or the request
 * fails with `-32600`.
 */
repoRoot?: string | null, 
/**
 * Only refresh files matching these globs (default: `file_globs` of
 * `[query_project_index]`).
 */
fileGlobs?: Array<string> | null, 
/**
 * Fail when the embedding provider's credentials or model are unavailable, instead of
 * refreshing the lexical index only (default: `require_embeddings` of the config).
 */
requireEmbeddings?: boolean | null, 
/**
 * Rebuild from scratch instead of refreshing incrementally (default false).
 */
forceFull?: boolean | null, };
