//! The project index behind `query_project` and `repo_index_refresh`: one engine-level module
//! that the MCP tools, the app-server's `index/*` methods, the agent's `query_project` model tool
//! and the `tandem index` CLI all call.
//!
//! A refresh walks the repository (`scan.rs`), compares it with the manifest, chunks the changed
//! files along code structure (`chunk.rs`), indexes their code-aware terms for BM25 (`tokenize.rs`,
//! SQLite FTS5 in `store.rs`) and has a background job (`job.rs`) embed the chunks whose text has
//! no vector yet (`embed/`, `vectors.rs`). A query blends normalised BM25 and cosine scores
//! (`query.rs`) and never waits for the job: until it is done, the query ranks with the vectors
//! committed so far and says so. Refreshes of one repository are serialised in-process
//! (`refresh.rs`) and transactional on disk.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod chunk;
pub mod disk;
pub mod embed;
pub mod install;
mod job;
pub mod query;
pub mod refresh;
pub mod scan;
pub mod stop;
pub mod store;
pub mod syntax;
pub mod tokenize;
pub mod vectors;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

pub use crate::query::{QueryOutcome, QueryRequest, QueryResult, query};
pub use crate::refresh::{IndexState, RefreshOutcome, RefreshRequest, refresh};

/// Errors of the index; each message is fit for an `isError` tool result or a CLI line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// Bad arguments (empty query, `alpha` out of range, bad glob, bad repo root).
    #[error("{0}")]
    InvalidInput(String),
    /// Embeddings were required and are not available.
    #[error("embeddings are required but not available ({reason}): {detail}")]
    EmbeddingsRequired {
        /// `missing_api_key`, `model_not_installed` or `embedding_query_failed`.
        reason: &'static str,
        /// What is missing.
        detail: String,
    },
    /// A file-system error.
    #[error("{0}")]
    Io(String),
    /// A database error.
    #[error("index database error: {0}")]
    Store(String),
    /// The work was stopped because its caller went away (a cancelled call, an interrupted
    /// turn, a server shutting down); nothing it did was committed.
    #[error("the index work was stopped: its caller went away")]
    Stopped,
}

/// Settings of the index, from `[query_project_index]`.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSettings {
    /// Index directory; relative paths are under the repository root.
    pub index_dir: PathBuf,
    /// Default embedding model.
    pub embedding_model: String,
    /// Whether calls fail when embeddings are unavailable.
    pub require_embeddings: bool,
    /// Default include globs.
    pub file_globs: Vec<String>,
    /// Provider settings.
    pub embedding: embed::EmbeddingSettings,
    /// Chunk sizes.
    pub chunk_limits: chunk::ChunkLimits,
    /// How files are cut into chunks.
    pub chunker: chunk::Chunker,
    /// Files larger than this are not indexed.
    pub max_file_bytes: u64,
    /// Default `alpha`.
    pub default_alpha: f64,
    /// How lexical and embedding rankings are combined.
    pub ranking: query::Method,
    /// Distinct query terms searched; later ones are dropped.
    pub max_query_terms: usize,
    /// Longest query, in bytes; a longer one is cut at a character boundary.
    pub max_query_bytes: usize,
}

impl IndexSettings {
    /// The defaults, with the local model under `models_dir`.
    pub fn with_defaults(models_dir: &Path) -> Self {
        Self {
            index_dir: PathBuf::from(".tandem/repo_hybrid_index"),
            embedding_model: embed::LOCAL_MODEL.to_string(),
            require_embeddings: false,
            file_globs: Vec::new(),
            embedding: embed::EmbeddingSettings {
                provider: None,
                base_url: None,
                api_key_env: None,
                local_model_dir: models_dir.join(embed::LOCAL_MODEL),
                local_implementation: embed::local::Implementation::Int8,
            },
            chunk_limits: chunk::ChunkLimits {
                max_lines: 60,
                overlap_lines: 3,
            },
            chunker: chunk::Chunker::default(),
            max_file_bytes: 1024 * 1024,
            default_alpha: 0.6,
            ranking: query::Method::default(),
            max_query_terms: 64,
            max_query_bytes: 8192,
        }
    }
}

/// Counts of one refresh (`refresh` in `query_project`, `stats` in `repo_index_refresh`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RefreshStats {
    /// Files the walk found (within the globs).
    pub scanned_files: usize,
    /// Files (re)indexed because they are new or their content changed.
    pub updated_files: usize,
    /// Files removed from the index because they are gone.
    pub removed_files: usize,
    /// Chunks in the index after the refresh.
    pub indexed_chunks: usize,
    /// Files skipped because they could not be read, are binary or are not UTF-8.
    pub skipped_files: usize,
    /// Chunks embedded by this refresh.
    pub embedded_chunks: usize,
}

/// Whether embeddings were used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmbeddingStatus {
    /// `skip` (lexical only), `optional` (used when available) or `required`.
    pub mode_used: &'static str,
    /// Whether embedding-backed ranking is active.
    pub ready: bool,
    /// Why not ready: `missing_api_key`, `embedding_query_failed`, `model_not_installed`, or
    /// `indexing` (the background job is still embedding; `progress` says how far it is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// Details of the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// With `reason: "indexing"`: how many of the repository's chunks have a vector.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<EmbeddingProgress>,
}

/// How far the background embedding of a repository is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EmbeddingProgress {
    /// Chunks whose text has a vector for the model (these take part in the ranking already).
    pub embedded_chunks: usize,
    /// Chunks in the index.
    pub total_chunks: usize,
}

impl EmbeddingStatus {
    fn ready(required: bool) -> Self {
        Self {
            mode_used: if required { "required" } else { "optional" },
            ready: true,
            reason: None,
            detail: None,
            progress: None,
        }
    }

    fn skipped(reason: Option<&'static str>, detail: Option<String>) -> Self {
        Self {
            mode_used: "skip",
            ready: false,
            reason,
            detail,
            progress: None,
        }
    }

    fn indexing(progress: EmbeddingProgress) -> Self {
        Self {
            mode_used: "optional",
            ready: false,
            reason: Some("indexing"),
            detail: None,
            progress: Some(progress),
        }
    }
}

/// What a refresh reports as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The walk found `files` files.
    Scanned {
        /// Files found.
        files: usize,
    },
    /// `done` of `total` changed files are chunked and indexed.
    Indexed {
        /// Files done.
        done: usize,
        /// Files to do.
        total: usize,
    },
    /// `done` of `total` chunks are embedded.
    Embedded {
        /// Chunks done.
        done: usize,
        /// Chunks to do.
        total: usize,
    },
}

/// A progress callback.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// A progress sink that drops everything.
pub fn no_progress() -> ProgressSink {
    Arc::new(|_| {})
}

/// Resolves and checks a repository root: it must exist, be a directory and be readable.
pub fn resolve_repo_root(path: &Path) -> Result<PathBuf, IndexError> {
    let metadata = std::fs::metadata(path).map_err(|error| {
        IndexError::InvalidInput(format!(
            "repo_root `{}` does not exist or cannot be accessed: {error}",
            path.display()
        ))
    })?;
    if !metadata.is_dir() {
        return Err(IndexError::InvalidInput(format!(
            "repo_root `{}` is not a directory",
            path.display()
        )));
    }
    std::fs::read_dir(path).map_err(|error| {
        IndexError::InvalidInput(format!(
            "repo_root `{}` is not readable: {error}",
            path.display()
        ))
    })?;
    path.canonicalize().map_err(|error| {
        IndexError::InvalidInput(format!(
            "repo_root `{}` cannot be resolved: {error}",
            path.display()
        ))
    })
}

/// The index directory of `repo_root`.
pub fn index_dir(settings: &IndexSettings, repo_root: &Path) -> PathBuf {
    if settings.index_dir.is_absolute() {
        settings.index_dir.clone()
    } else {
        repo_root.join(&settings.index_dir)
    }
}
