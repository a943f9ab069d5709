//! `index/query`, `index/refresh` and `index/progress`: the project index for IDE clients, with
//! the arguments and payloads of the MCP tools `query_project` and `repo_index_refresh`
//! (`spec/query-project.md`), field names in camelCase. See `docs/protocol.md`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `index/query`. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct IndexQueryParams {
    /// Plain-language description of what to find (trimmed; empty is an error).
    pub query: String,
    /// Results to return; default 8, clamped to 1..=200.
    #[serde(default)]
    pub limit: Option<i64>,
    /// Include filters such as `src/**` or `*.rs` (default: `file_globs` of `[query_project_index]`).
    #[serde(default)]
    pub file_globs: Option<Vec<String>>,
    /// Blend of lexical and embedding scores, 0.0 (lexical only) to 1.0 (embedding only);
    /// outside that range is an error. Default: `default_alpha` of `[query_project_index]`.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Repository to search, absolute or relative to the server's working directory (default:
    /// that directory); once `..` and symbolic links are resolved it must lie inside that
    /// directory or one listed in the server's `[query_project_index] roots`, or the request
    /// fails with `-32600`.
    #[serde(default)]
    pub repo_root: Option<String>,
    /// Embedding model for this call (default: `embedding_model` of `[query_project_index]`).
    #[serde(default)]
    pub embedding_model: Option<String>,
}

/// Result of `index/query`: the index was refreshed incrementally first. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexQueryResponse {
    /// The canonical repository root.
    pub repo_root: String,
    /// The trimmed query.
    pub query: String,
    /// The effective limit.
    pub limit: i64,
    /// The effective blend.
    pub alpha: f64,
    /// The embedding model of this call.
    pub embedding_model: String,
    /// Whether embeddings ranked this answer, and why not.
    pub embedding_status: IndexEmbeddingStatus,
    /// What the refresh before the answer did.
    pub refresh: IndexRefreshStats,
    /// Ranked snippets, best first.
    pub results: Vec<IndexQueryResult>,
}

/// One ranked snippet of `index/query`. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexQueryResult {
    /// File path relative to the repository root, with `/` separators.
    pub path: String,
    /// The snippet's lines in the file.
    pub line_range: IndexLineRange,
    /// The text of those lines (long chunks are cut at a line end).
    pub snippet: String,
    /// `(1 − alpha) × lexical + alpha × embedding`, both normalised to 0..1 over the
    /// candidates (see `docs/mcp.md`); higher is better.
    pub score: f64,
}

/// A 1-based, inclusive line range. @experimental
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct IndexLineRange {
    /// First line.
    pub start: i64,
    /// Last line.
    pub end: i64,
}

/// Parameters of `index/refresh`. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct IndexRefreshParams {
    /// Repository to index, absolute or relative to the server's working directory (default:
    /// that directory); once `..` and symbolic links are resolved it must lie inside that
    /// directory or one listed in the server's `[query_project_index] roots`, or the request
    /// fails with `-32600`.
    #[serde(default)]
    pub repo_root: Option<String>,
    /// Only refresh files matching these globs (default: `file_globs` of
    /// `[query_project_index]`).
    #[serde(default)]
    pub file_globs: Option<Vec<String>>,
    /// Fail when the embedding provider's credentials or model are unavailable, instead of
    /// refreshing the lexical index only (default: `require_embeddings` of the config).
    #[serde(default)]
    pub require_embeddings: Option<bool>,
    /// Rebuild from scratch instead of refreshing incrementally (default false).
    #[serde(default)]
    pub force_full: Option<bool>,
}

/// Result of `index/refresh`. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexRefreshResponse {
    /// The canonical repository root.
    pub repo_root: String,
    /// What the refresh did.
    pub stats: IndexRefreshStats,
    /// Whether every chunk has an embedding, and why not.
    pub embedding_status: IndexEmbeddingStatus,
}

/// Counts of one refresh. @experimental
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexRefreshStats {
    /// Files the walk found (after ignore rules and globs).
    pub scanned_files: i64,
    /// Files (re)indexed because they are new or their content changed.
    pub updated_files: i64,
    /// Files removed from the index because they are gone.
    pub removed_files: i64,
    /// Chunks in the index after the refresh.
    pub indexed_chunks: i64,
    /// Files skipped: unreadable, binary or not UTF-8.
    pub skipped_files: i64,
    /// Chunks embedded by this refresh.
    pub embedded_chunks: i64,
}

/// Whether embedding-backed ranking is active. @experimental
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexEmbeddingStatus {
    /// How embeddings were used.
    pub mode_used: IndexEmbeddingMode,
    /// Whether embedding-backed ranking is active for this answer.
    pub ready: bool,
    /// Why not, when not ready and a reason is known; `null` otherwise (also when embeddings
    /// were not wanted: `alpha` 0 or model `none`).
    pub reason: Option<IndexEmbeddingUnavailable>,
    /// Details of the reason (the missing variable, file or the provider's error); `null` when
    /// ready.
    pub detail: Option<String>,
    /// With reason `indexing`: how far the background embedding of the repository is;
    /// `null` otherwise.
    #[serde(default)]
    pub progress: Option<IndexEmbeddingProgress>,
}

/// How far the background embedding of a repository is. @experimental
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexEmbeddingProgress {
    /// Chunks that have a vector (they take part in the ranking already).
    pub embedded_chunks: i64,
    /// Chunks in the index.
    pub total_chunks: i64,
}

/// How embeddings were used (the MCP tools' `mode_used`). @experimental
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum IndexEmbeddingMode {
    /// Not used: the answer is lexical only.
    Skip,
    /// Used because they were available.
    Optional,
    /// Used because the caller or the config demanded them.
    Required,
}

/// Why embeddings are not ready (the MCP tools' `reason`, same spelling). @experimental
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum IndexEmbeddingUnavailable {
    /// The provider's API key variable is not set.
    MissingApiKey,
    /// The provider failed (network, status, malformed answer).
    EmbeddingQueryFailed,
    /// The local model's files are missing or corrupt (`tandem index install-model`).
    ModelNotInstalled,
    /// The background job is still embedding the repository's chunks: the answer ranks the
    /// chunks embedded so far with their vectors, the others lexically (`progress`).
    Indexing,
}

/// Progress of the refresh run by an `index/refresh` or `index/query` request, sent to the
/// connection that made it, before its response. Lossy: a slow client may miss some.
/// @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgressNotification {
    /// The repository being refreshed, as the request named it (resolved against the server's
    /// working directory, not canonicalised).
    pub repo_root: String,
    /// The phase.
    pub phase: IndexProgressPhase,
    /// Units done in this phase: files found (`scanning`), changed files indexed (`indexing`)
    /// or chunks embedded (`embedding`).
    pub done: i64,
    /// Units of this phase in all; `null` while scanning, whose total is not known in advance.
    pub total: Option<i64>,
}

/// A phase of a refresh. @experimental
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum IndexProgressPhase {
    /// Walking the repository; `done` counts the files found.
    Scanning,
    /// Chunking and indexing new or changed files.
    Indexing,
    /// Embedding chunks that have no vector yet.
    Embedding,
}
