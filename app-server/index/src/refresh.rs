//! Refresh coordination and the refresh itself: one refresh per repository at a time (a second
//! caller waits for the first and then finds little or nothing to do), the lexical update as one
//! transaction, then embeddings of the chunks whose text has no vector yet, batch by batch.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::embed::{self, EmbeddingProvider, NotReady};
use crate::scan::{self, Globs};
use crate::stop::{StopFlag, blocking};
use crate::store::{FileUpdate, ManifestEntry, Store};
use crate::vectors::{self, VectorMatrix};
use crate::{EmbeddingStatus, IndexError, IndexSettings, Progress, ProgressSink, RefreshStats};

/// Arguments of `repo_index_refresh`.
#[derive(Debug, Clone)]
pub struct RefreshRequest {
    /// Repository root.
    pub repo_root: PathBuf,
    /// Include globs (`None`: the configured ones).
    pub file_globs: Option<Vec<String>>,
    /// Fail when embeddings are unavailable (`None`: the configured default).
    pub require_embeddings: Option<bool>,
    /// Rebuild from scratch.
    pub force_full: bool,
    /// Model (`None`: the configured one).
    pub embedding_model: Option<String>,
}

/// The `repo_index_refresh` payload.
#[derive(Debug, Clone, Serialize)]
pub struct RefreshOutcome {
    /// The canonical repository root.
    pub repo_root: String,
    /// Counts.
    pub stats: RefreshStats,
    /// Whether the index has embeddings for every chunk.
    pub embedding_status: EmbeddingStatus,
}

/// The in-process state of the project index: per repository, the lock held for a refresh and
/// the vectors last queried; and the local embedding models loaded so far.
///
/// A server creates one at startup and hands it (clones share it) to everything that indexes
/// or queries for it: every engine, MCP session and tool call. Two callers refreshing one
/// repository through the same state take turns, and a model is loaded once; callers holding
/// different states (two servers' worth in one process, as in tests) share nothing.
#[derive(Clone, Default)]
pub struct IndexState {
    repos: Arc<Mutex<HashMap<PathBuf, Arc<RepoState>>>>,
    models: embed::local::LoadedModels,
}

impl std::fmt::Debug for IndexState {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("IndexState").finish_non_exhaustive()
    }
}

impl IndexState {
    /// The state of `index_dir`'s repository.
    pub(crate) fn repo(&self, index_dir: &Path) -> Arc<RepoState> {
        let mut repos = match self.repos.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        repos.entry(index_dir.to_path_buf()).or_default().clone()
    }

    /// The local models loaded so far.
    pub fn models(&self) -> &embed::local::LoadedModels {
        &self.models
    }

    /// Whether `self` and `other` are the same state (clones of one another).
    pub fn same_as(&self, other: &IndexState) -> bool {
        Arc::ptr_eq(&self.repos, &other.repos)
    }
}

/// In-process state of one repository.
#[derive(Default)]
pub(crate) struct RepoState {
    /// Held for the whole of a refresh.
    pub(crate) refresh_lock: tokio::sync::Mutex<()>,
    /// Vectors of the last model queried, with the generation they were loaded at.
    pub(crate) vectors: Mutex<Option<CachedVectors>>,
}

pub(crate) struct CachedVectors {
    pub(crate) model: String,
    pub(crate) generation: i64,
    pub(crate) matrix: Arc<VectorMatrix>,
    pub(crate) paths: Arc<HashMap<i64, String>>,
}

/// Refreshes the index of `request.repo_root`, taking turns with the other refreshes of that
/// repository under `state`.
pub async fn refresh(
    state: &IndexState,
    settings: &IndexSettings,
    request: RefreshRequest,
    progress: ProgressSink,
) -> Result<RefreshOutcome, IndexError> {
    let repo_root = crate::resolve_repo_root(&request.repo_root)?;
    let required = request
        .require_embeddings
        .unwrap_or(settings.require_embeddings);
    let model = request
        .embedding_model
        .clone()
        .unwrap_or_else(|| settings.embedding_model.clone());
    let globs = request
        .file_globs
        .clone()
        .unwrap_or_else(|| settings.file_globs.clone());
    let provider = if model == embed::NO_MODEL && !required {
        Ok(None)
    } else {
        embed::resolve(&model, &settings.embedding, state.models()).map(Some)
    };
    if required && let Err(not_ready) = &provider {
        return Err(IndexError::EmbeddingsRequired {
            reason: not_ready.reason,
            detail: not_ready.detail.clone(),
        });
    }
    let (stats, status) = refresh_resolved(
        state,
        settings,
        &repo_root,
        &globs,
        request.force_full,
        provider,
        required,
        progress,
    )
    .await?;
    Ok(RefreshOutcome {
        repo_root: repo_root.display().to_string(),
        stats,
        embedding_status: status,
    })
}

/// A refresh with the repository and provider already resolved (`Ok(None)`: embeddings not
/// wanted). Shared by [`refresh`] and the query path.
#[allow(
    clippy::too_many_arguments,
    reason = "the server's index state travels beside the refresh's own arguments"
)]
pub(crate) async fn refresh_resolved(
    state: &IndexState,
    settings: &IndexSettings,
    repo_root: &Path,
    globs: &[String],
    force_full: bool,
    provider: Result<Option<Arc<dyn EmbeddingProvider>>, NotReady>,
    required: bool,
    progress: ProgressSink,
) -> Result<(RefreshStats, EmbeddingStatus), IndexError> {
    let globs = Globs::new(globs)?;
    let index_dir = crate::index_dir(settings, repo_root);
    let repo = state.repo(&index_dir);
    let _guard = repo.refresh_lock.lock().await;
    let lexical = {
        let settings = settings.clone();
        let repo_root = repo_root.to_path_buf();
        let index_dir = index_dir.clone();
        let progress = progress.clone();
        blocking(move |stop| {
            refresh_lexical(
                &settings, &repo_root, &index_dir, &globs, force_full, &progress, stop,
            )
        })
        .await?
    };
    let mut stats = lexical;
    let provider = match provider {
        Ok(Some(provider)) => provider,
        Ok(None) => return Ok((stats, EmbeddingStatus::skipped(None, None))),
        Err(not_ready) => {
            return Ok((
                stats,
                EmbeddingStatus::skipped(Some(not_ready.reason), Some(not_ready.detail)),
            ));
        }
    };
    match embed_pending(&index_dir, provider.as_ref(), &progress).await {
        Ok(embedded) => {
            stats.embedded_chunks = embedded;
            Ok((stats, EmbeddingStatus::ready(required)))
        }
        Err(EmbedFailure::Provider(detail)) if !required => {
            tracing::warn!(%detail, "embedding failed; the lexical index is complete");
            Ok((
                stats,
                EmbeddingStatus::skipped(Some("embedding_query_failed"), Some(detail)),
            ))
        }
        Err(EmbedFailure::Provider(detail)) => Err(IndexError::EmbeddingsRequired {
            reason: "embedding_query_failed",
            detail,
        }),
        Err(EmbedFailure::Index(error)) => Err(error),
    }
}

fn refresh_lexical(
    settings: &IndexSettings,
    repo_root: &Path,
    index_dir: &Path,
    globs: &Globs,
    force_full: bool,
    progress: &ProgressSink,
    stop: &StopFlag,
) -> Result<RefreshStats, IndexError> {
    crate::disk::prepare_index_dir(repo_root, index_dir)?;
    exclude_from_git(repo_root, index_dir);
    let mut store = Store::open(index_dir)?;
    if force_full {
        store.clear()?;
    }
    let (files, unreadable) =
        scan::scan(repo_root, index_dir, globs, settings.max_file_bytes, stop)?;
    progress(Progress::Scanned { files: files.len() });
    let manifest = store.manifest()?;
    let mut stats = RefreshStats {
        scanned_files: files.len(),
        skipped_files: unreadable,
        ..RefreshStats::default()
    };
    let seen: HashSet<&str> = files.iter().map(|file| file.path.as_str()).collect();
    let mut removed: Vec<String> = manifest
        .keys()
        .filter(|path| globs.matches(path) && !seen.contains(path.as_str()))
        .cloned()
        .collect();
    let candidates: Vec<&scan::ScannedFile> = files
        .iter()
        .filter(|file| {
            manifest
                .get(&file.path)
                .is_none_or(|entry| entry.size != file.size || entry.mtime_ns != file.mtime_ns)
        })
        .collect();
    let mut updates = Vec::new();
    for (done, file) in candidates.iter().enumerate() {
        stop.check()?;
        if done % 64 == 0 {
            progress(Progress::Indexed {
                done,
                total: candidates.len(),
            });
        }
        let Some(text) = read_text(&file.absolute) else {
            stats.skipped_files += 1;
            if manifest.contains_key(&file.path) {
                removed.push(file.path.clone());
            }
            continue;
        };
        let hash = sha1_smol::Sha1::from(text.as_bytes()).digest().to_string();
        let entry = ManifestEntry {
            size: file.size,
            mtime_ns: file.mtime_ns,
            hash,
        };
        let touch_only = manifest
            .get(&file.path)
            .is_some_and(|old| old.hash == entry.hash);
        let chunks = if touch_only {
            Vec::new()
        } else {
            crate::chunk::chunk_text(&text, settings.chunk_limits)
        };
        if !touch_only {
            stats.updated_files += 1;
        }
        updates.push(FileUpdate {
            path: file.path.clone(),
            entry,
            chunks,
            touch_only,
        });
    }
    progress(Progress::Indexed {
        done: candidates.len(),
        total: candidates.len(),
    });
    stats.removed_files = removed.len();
    store.apply(&removed, &updates, stop)?;
    stats.indexed_chunks = store.chunk_count()?;
    Ok(stats)
}

/// A file's text, or `None` when it is unreadable, binary or not UTF-8.
fn read_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    if scan::looks_binary(&bytes) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

enum EmbedFailure {
    Provider(String),
    Index(IndexError),
}

/// Embeds every chunk text without a vector for the provider's model; each batch is committed,
/// so a failure keeps the work done so far.
async fn embed_pending(
    index_dir: &Path,
    provider: &dyn EmbeddingProvider,
    progress: &ProgressSink,
) -> Result<usize, EmbedFailure> {
    let model = provider.model().to_string();
    let pending = {
        let index_dir = index_dir.to_path_buf();
        let model = model.clone();
        blocking(move |_| Store::open(&index_dir)?.pending_embeddings(&model))
            .await
            .map_err(EmbedFailure::Index)?
    };
    let total = pending.len();
    let mut done = 0;
    progress(Progress::Embedded { done, total });
    // Commit about every 256 chunks so that a crash or failure loses little.
    for group in pending.chunks(256) {
        let mut quantized = Vec::with_capacity(group.len());
        for batch in group.chunks(provider.batch_size().max(1)) {
            let texts: Vec<String> = batch.iter().map(|(_, text)| text.clone()).collect();
            let vectors = provider
                .embed(&texts)
                .await
                .map_err(EmbedFailure::Provider)?;
            for ((hash, _), mut vector) in batch.iter().zip(vectors) {
                vectors::normalize(&mut vector);
                quantized.push((hash.clone(), vectors::quantize(&vector)));
            }
            done += batch.len();
            progress(Progress::Embedded { done, total });
        }
        let index_dir = index_dir.to_path_buf();
        let model = model.clone();
        blocking(move |_| Store::open(&index_dir)?.put_vectors(&model, &quantized))
            .await
            .map_err(EmbedFailure::Index)?;
    }
    if total > 0 {
        let index_dir = index_dir.to_path_buf();
        blocking(move |_| Store::open(&index_dir)?.collect_vector_garbage())
            .await
            .map_err(EmbedFailure::Index)?;
    }
    Ok(total)
}

/// Adds the index directory to `.git/info/exclude` when `repo_root` is a git repository and the
/// directory is inside it (best effort; failures are logged).
fn exclude_from_git(repo_root: &Path, index_dir: &Path) {
    let git_dir = repo_root.join(".git");
    if !git_dir.is_dir() {
        return;
    }
    let Ok(relative) = index_dir.strip_prefix(repo_root) else {
        return;
    };
    let line = format!("/{}/", relative.display());
    let exclude = git_dir.join("info").join("exclude");
    let existing = std::fs::read_to_string(&exclude).unwrap_or_default();
    if existing
        .lines()
        .any(|existing_line| existing_line.trim() == line)
    {
        return;
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&line);
    text.push('\n');
    let result =
        std::fs::create_dir_all(git_dir.join("info")).and_then(|()| std::fs::write(&exclude, text));
    if let Err(error) = result {
        tracing::warn!(%error, path = %exclude.display(), "cannot add the index to .git/info/exclude");
    }
}
