//! Refresh coordination and the refresh itself: one lexical refresh per repository at a time (a
//! second caller waits for the first and then finds little or nothing to do), the lexical update
//! as one transaction, then the background embedding job (`job.rs`) asked to embed the chunks
//! whose text has no vector yet, waited for or not.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::embed::{self, EmbeddingProvider, NotReady};
use crate::job::{self, JobError};
use crate::scan::{self, Globs};
use crate::stop::{StopFlag, blocking};
use crate::store::{FileUpdate, ManifestEntry, Store};
use crate::vectors::VectorMatrix;
use crate::watch::{Plan, RepoWatch};
use crate::{
    EmbeddingProgress, EmbeddingStatus, IndexError, IndexSettings, Progress, ProgressSink,
    RefreshStats,
};

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

/// The in-process state of the project index: per repository, the lock held for a refresh, the
/// vectors last queried and the background embedding job; the local embedding models loaded so
/// far; and the turn that embedding jobs take, one batch at a time per process.
///
/// A server creates one at startup and hands it (clones share it) to everything that indexes
/// or queries for it: every engine, MCP session and tool call. Two callers refreshing one
/// repository through the same state take turns, and a model is loaded once; callers holding
/// different states (two servers' worth in one process, as in tests) share nothing.
#[derive(Clone)]
pub struct IndexState {
    repos: Arc<Mutex<HashMap<PathBuf, Arc<RepoState>>>>,
    models: embed::local::LoadedModels,
    embed_turn: Arc<tokio::sync::Semaphore>,
    jobs_stop: StopFlag,
    watched: Arc<std::sync::atomic::AtomicUsize>,
}

/// Most repositories one state watches; refreshes of any further one walk.
pub const MAX_WATCHED_REPOSITORIES: usize = 16;

impl Default for IndexState {
    fn default() -> Self {
        Self {
            repos: Arc::default(),
            models: embed::local::LoadedModels::default(),
            embed_turn: Arc::new(tokio::sync::Semaphore::new(1)),
            jobs_stop: StopFlag::default(),
            watched: Arc::default(),
        }
    }
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

    /// Stops every background embedding job of this state at its next batch, for good: what
    /// they committed stays, and no job of this state embeds again (a later one fails at once),
    /// so a server shutting down stops embedding. The next process resumes the work.
    pub fn stop_embedding_jobs(&self) {
        self.jobs_stop.raise();
    }

    /// The flag that stops the embedding jobs.
    pub(crate) fn jobs_stop(&self) -> &StopFlag {
        &self.jobs_stop
    }

    /// The turn of one embedding batch: jobs of different repositories embed one batch at a time.
    pub(crate) async fn embed_permit(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        self.embed_turn.acquire().await.ok()
    }
}

/// In-process state of one repository.
#[derive(Default)]
pub(crate) struct RepoState {
    /// Held for the whole of a lexical refresh.
    pub(crate) refresh_lock: tokio::sync::Mutex<()>,
    /// Vectors of the last model queried, with the generation they were loaded at.
    pub(crate) vectors: Mutex<Option<CachedVectors>>,
    /// The background embedding job.
    pub(crate) job: job::JobSlot,
    /// The file-system watcher that spares refreshes their walk.
    pub(crate) watch: Mutex<WatchState>,
    /// Full walks done (logged, so that tests can count them).
    pub(crate) walks: std::sync::atomic::AtomicU64,
}

/// Whether a repository is watched.
#[derive(Default)]
pub(crate) enum WatchState {
    /// Not yet: the first refresh starts the watcher.
    #[default]
    NotStarted,
    /// Watching is unavailable: every refresh walks.
    Unavailable,
    /// Changes are recorded as they happen.
    Watching(RepoWatch),
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
        true,
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
///
/// The lexical index is brought up to date first (under the repository's refresh lock); then
/// the background embedding job is asked to embed what has no vector. With `wait` (or
/// `required`) the call waits for the job, reporting its progress; without, it returns at once
/// with `ready: false, reason: "indexing"` and the job's progress while vectors are missing.
#[allow(
    clippy::too_many_arguments,
    reason = "the server's index state travels beside the refresh's own arguments"
)]
pub(crate) async fn refresh_resolved(
    state: &IndexState,
    settings: &IndexSettings,
    repo_root: &Path,
    patterns: &[String],
    force_full: bool,
    provider: Result<Option<Arc<dyn EmbeddingProvider>>, NotReady>,
    required: bool,
    wait: bool,
    progress: ProgressSink,
) -> Result<(RefreshStats, EmbeddingStatus), IndexError> {
    let globs = Globs::new(patterns)?;
    let index_dir = crate::index_dir(settings, repo_root);
    let (mut stats, generation) = {
        let locked = state.repo(&index_dir);
        let _guard = locked.refresh_lock.lock().await;
        let repo = locked.clone();
        let lexical = Lexical {
            settings: settings.clone(),
            repo_root: repo_root.to_path_buf(),
            index_dir: index_dir.clone(),
            globs,
            patterns: patterns.to_vec(),
            force_full,
        };
        let progress = progress.clone();
        let watched = state.watched.clone();
        blocking(move |stop| lexical.run(&repo, &watched, &progress, stop)).await?
    };
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
    let model = provider.model().to_string();
    if wait || required {
        let ticket = job::ensure(state, repo_root, &index_dir, provider);
        return match job::wait(state, &index_dir, ticket, &progress).await {
            Ok(embedded) => {
                stats.embedded_chunks = embedded;
                Ok((stats, EmbeddingStatus::ready(required)))
            }
            Err(JobError::Provider(detail)) if !required => {
                tracing::warn!(%detail, "embedding failed; the lexical index is complete");
                Ok((
                    stats,
                    EmbeddingStatus::skipped(Some("embedding_query_failed"), Some(detail)),
                ))
            }
            Err(JobError::Provider(detail)) => Err(IndexError::EmbeddingsRequired {
                reason: "embedding_query_failed",
                detail,
            }),
            Err(JobError::Index(detail)) => Err(IndexError::Io(detail)),
        };
    }
    let current = job::status(state, &index_dir);
    if current.model == model && current.error.is_none() && current.complete_at == Some(generation)
    {
        return Ok((stats, EmbeddingStatus::ready(false)));
    }
    job::ensure(state, repo_root, &index_dir, provider);
    if current.model == model
        && let Some(JobError::Provider(detail)) = current.error
    {
        // The last run failed: this answer says so (the job tries again meanwhile).
        return Ok((
            stats,
            EmbeddingStatus::skipped(Some("embedding_query_failed"), Some(detail)),
        ));
    }
    let (embedded_chunks, total_chunks) = {
        let index_dir = index_dir.clone();
        blocking(move |_| Store::open(&index_dir)?.embedding_counts(&model)).await?
    };
    if embedded_chunks == total_chunks {
        return Ok((stats, EmbeddingStatus::ready(false)));
    }
    Ok((
        stats,
        EmbeddingStatus::indexing(EmbeddingProgress {
            embedded_chunks,
            total_chunks,
        }),
    ))
}

/// One lexical refresh's arguments.
struct Lexical {
    settings: IndexSettings,
    repo_root: PathBuf,
    index_dir: PathBuf,
    globs: Globs,
    patterns: Vec<String>,
    force_full: bool,
}

impl Lexical {
    /// Runs the refresh; when it fails, the next one walks (the changes it took are not lost).
    fn run(
        &self,
        repo: &RepoState,
        watched: &std::sync::atomic::AtomicUsize,
        progress: &ProgressSink,
        stop: &StopFlag,
    ) -> Result<(RefreshStats, i64), IndexError> {
        crate::disk::prepare_index_dir(&self.repo_root, &self.index_dir)?;
        exclude_from_git(&self.repo_root, &self.index_dir);
        let mut watch = match repo.watch.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if matches!(*watch, WatchState::NotStarted) {
            *watch = if watched.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                < MAX_WATCHED_REPOSITORIES
            {
                RepoWatch::start(&self.repo_root, &self.index_dir)
                    .map_or(WatchState::Unavailable, WatchState::Watching)
            } else {
                WatchState::Unavailable
            };
        }
        let plan = match &*watch {
            WatchState::Watching(watcher) if !self.force_full => watcher.plan(&self.patterns),
            _ => Plan::Walk,
        };
        let outcome = self.refresh(repo, plan, progress, stop);
        if outcome.is_err()
            && let WatchState::Watching(watcher) = &*watch
        {
            watcher.walk_next();
        }
        outcome
    }

    fn refresh(
        &self,
        repo: &RepoState,
        plan: Plan,
        progress: &ProgressSink,
        stop: &StopFlag,
    ) -> Result<(RefreshStats, i64), IndexError> {
        let (settings, repo_root, index_dir, globs) = (
            &self.settings,
            &self.repo_root,
            &self.index_dir,
            &self.globs,
        );
        let mut store = Store::open(index_dir)?;
        if self.force_full {
            store.clear()?;
        }
        // Chunks cut by another chunker (or an index from before chunkers were recorded) are
        // cut again: every file, so the walk.
        let plan = if store.chunker()?.as_deref() == Some(settings.chunker.id()) {
            plan
        } else {
            store.rechunk(settings.chunker.id())?;
            Plan::Walk
        };
        let manifest = store.manifest()?;
        let targeted = match plan {
            Plan::Paths(paths) => changed_files(settings, repo_root, globs, &manifest, paths),
            Plan::Walk => None,
        };
        let (files, mut removed, unreadable, scanned) = match targeted {
            Some((files, removed)) => {
                let new = files
                    .iter()
                    .filter(|file| !manifest.contains_key(&file.path))
                    .count();
                let indexed = manifest.keys().filter(|path| globs.matches(path)).count();
                let scanned = (indexed + new).saturating_sub(removed.len());
                (files, removed, 0, scanned)
            }
            None => {
                let walks = repo
                    .walks
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                    + 1;
                tracing::info!(repo_root = %repo_root.display(), walks, "project index walk");
                let (files, unreadable) =
                    scan::scan(repo_root, index_dir, globs, settings.max_file_bytes, stop)?;
                let seen: HashSet<&str> = files.iter().map(|file| file.path.as_str()).collect();
                let removed: Vec<String> = manifest
                    .keys()
                    .filter(|path| globs.matches(path) && !seen.contains(path.as_str()))
                    .cloned()
                    .collect();
                let scanned = files.len();
                (files, removed, unreadable, scanned)
            }
        };
        progress(Progress::Scanned { files: scanned });
        let mut stats = RefreshStats {
            scanned_files: scanned,
            skipped_files: unreadable,
            ..RefreshStats::default()
        };
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
                crate::chunk::chunk_file(&file.path, &text, settings.chunk_limits, settings.chunker)
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
        Ok((stats, store.generation()?))
    }
}

/// The files among `paths` (the watcher's changes) that the walk would include, and the indexed
/// paths that are gone; `None` when a path needs the walk after all.
fn changed_files(
    settings: &IndexSettings,
    repo_root: &Path,
    globs: &Globs,
    manifest: &HashMap<String, ManifestEntry>,
    paths: Vec<PathBuf>,
) -> Option<(Vec<scan::ScannedFile>, Vec<String>)> {
    let mut files = Vec::new();
    let mut removed = Vec::new();
    for path in paths {
        let relative_path = path.strip_prefix(repo_root).ok()?.to_path_buf();
        let relative = relative_path.to_str()?.replace('\\', "/");
        if !globs.matches(&relative) && !manifest.contains_key(&relative) {
            // A directory's path may not match a file glob: check what was indexed under it.
            let prefix = format!("{relative}/");
            if !path.exists() {
                removed.extend(
                    manifest
                        .keys()
                        .filter(|key| key.starts_with(&prefix))
                        .cloned(),
                );
            }
            continue;
        }
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.is_file() => {
                if metadata.len() > settings.max_file_bytes || !globs.matches(&relative) {
                    if manifest.contains_key(&relative) {
                        removed.push(relative);
                    }
                    continue;
                }
                if !manifest.contains_key(&relative)
                    && crate::watch::is_ignored(repo_root, &relative_path)
                {
                    continue;
                }
                files.push(scan::ScannedFile {
                    path: relative,
                    absolute: path,
                    size: metadata.len(),
                    mtime_ns: scan::mtime_ns(&metadata),
                });
            }
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) | Err(_) => {
                let prefix = format!("{relative}/");
                removed.extend(
                    manifest
                        .keys()
                        .filter(|key| **key == relative || key.starts_with(&prefix))
                        .cloned(),
                );
            }
        }
    }
    removed.sort();
    removed.dedup();
    files.sort_by(|left, right| left.path.cmp(&right.path));
    files.dedup_by(|left, right| left.path == right.path);
    Some((files, removed))
}

/// A file's text, or `None` when it is unreadable, binary or not UTF-8.
fn read_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    if scan::looks_binary(&bytes) {
        return None;
    }
    String::from_utf8(bytes).ok()
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
