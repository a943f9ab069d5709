//! The background embedding job: one per repository, started by a refresh or a query that finds
//! chunks without a vector, running until every chunk text of the repository has one.
//!
//! A query never waits for it: it answers from the lexical index and the vectors committed so
//! far. A caller that needs every vector (`repo_index_refresh`, `require_embeddings`) waits for
//! the job with [`wait`], which reports its progress. The job commits the vectors of each
//! provider batch in its own transaction, keyed by chunk text hash, so a process killed during
//! embedding loses at most one batch and the next job (in the restarted server) embeds only what
//! has no vector yet. Jobs of all repositories of one [`IndexState`] take turns batch by batch
//! (one batch at a time per process), and [`IndexState::stop_embedding_jobs`] stops them at
//! their next batch.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::watch;

use crate::embed::EmbeddingProvider;
use crate::refresh::IndexState;
use crate::stop::blocking;
use crate::store::Store;
use crate::vectors;
use crate::{IndexError, Progress, ProgressSink};

/// The job slot of one repository.
pub(crate) struct JobSlot {
    control: Mutex<Control>,
    status: watch::Sender<JobStatus>,
}

impl Default for JobSlot {
    fn default() -> Self {
        Self {
            control: Mutex::new(Control::default()),
            status: watch::channel(JobStatus::default()).0,
        }
    }
}

#[derive(Default)]
struct Control {
    /// Whether a job task is running.
    running: bool,
    /// Bumped by every [`ensure`]; the job has served a request once `completed` reaches it.
    requested: u64,
    /// The provider the latest request asked for.
    provider: Option<Arc<dyn EmbeddingProvider>>,
}

/// What the job of a repository has done, as its waiters and queries see it.
#[derive(Debug, Clone, Default)]
pub(crate) struct JobStatus {
    /// The latest request served (see [`Control::requested`]).
    pub(crate) completed: u64,
    /// The model of the latest run.
    pub(crate) model: String,
    /// Chunk texts embedded by the current run, of `total` it found without a vector.
    pub(crate) done: usize,
    /// Chunk texts the current run found without a vector.
    pub(crate) total: usize,
    /// Chunk texts embedded by every run of this process (for the refresh counts).
    pub(crate) embedded_ever: usize,
    /// Why the latest finished run stopped early (provider or index failure), `None` when it
    /// embedded everything.
    pub(crate) error: Option<JobError>,
    /// The index generation at which the latest run found nothing left to embed.
    pub(crate) complete_at: Option<i64>,
}

/// Why a run stopped early.
#[derive(Debug, Clone)]
pub(crate) enum JobError {
    /// The provider failed; the message says how.
    Provider(String),
    /// The index failed or the job was stopped.
    Index(String),
}

fn lock(control: &Mutex<Control>) -> MutexGuard<'_, Control> {
    match control.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// A request that the job of `index_dir` embed everything pending with `provider`, starting the
/// job when none runs. Returns the ticket to [`wait`] for.
pub(crate) fn ensure(
    state: &IndexState,
    repo_root: &Path,
    index_dir: &Path,
    provider: Arc<dyn EmbeddingProvider>,
) -> u64 {
    let repo = state.repo(index_dir);
    let mut control = lock(&repo.job.control);
    control.requested += 1;
    control.provider = Some(provider);
    let ticket = control.requested;
    if !control.running {
        control.running = true;
        let state = state.clone();
        let index_dir = index_dir.to_path_buf();
        let repo_root = repo_root.to_path_buf();
        tokio::spawn(async move { run(state, repo_root, index_dir).await });
    }
    ticket
}

/// The job's status for `index_dir`.
pub(crate) fn status(state: &IndexState, index_dir: &Path) -> JobStatus {
    state.repo(index_dir).job.status.borrow().clone()
}

/// Waits until the job has served `ticket`, reporting its progress; the run's failure, if any.
/// Returns the chunk texts embedded while waiting.
pub(crate) async fn wait(
    state: &IndexState,
    index_dir: &Path,
    ticket: u64,
    progress: &ProgressSink,
) -> Result<usize, JobError> {
    let mut receiver = state.repo(index_dir).job.status.subscribe();
    let start = receiver.borrow().embedded_ever;
    loop {
        let status = receiver.borrow_and_update().clone();
        if status.completed >= ticket {
            let embedded = status.embedded_ever - start;
            return match status.error {
                Some(error) => Err(error),
                None => Ok(embedded),
            };
        }
        progress(Progress::Embedded {
            done: status.done,
            total: status.total,
        });
        if receiver.changed().await.is_err() {
            return Err(JobError::Index("the embedding job ended".into()));
        }
    }
}

/// Publishes the end of a run even when the job's task panics or is dropped (a runtime
/// shutting down), so that no waiter waits forever.
struct Finish<'a> {
    slot: &'a JobSlot,
    armed: bool,
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let mut control = lock(&self.slot.control);
        control.running = false;
        let requested = control.requested;
        self.slot.status.send_modify(|status| {
            status.completed = requested;
            status.error = Some(JobError::Index("the embedding job ended early".into()));
        });
    }
}

async fn run(state: IndexState, repo_root: PathBuf, index_dir: PathBuf) {
    let repo = state.repo(&index_dir);
    let slot = &repo.job;
    let mut finish = Finish { slot, armed: true };
    loop {
        let (ticket, provider) = {
            let control = lock(&slot.control);
            (control.requested, control.provider.clone())
        };
        let Some(provider) = provider else { break };
        let outcome = embed_pending(&state, &index_dir, provider.as_ref(), slot).await;
        let mut control = lock(&slot.control);
        match outcome {
            Ok((embedded, generation)) if control.requested == ticket => {
                control.running = false;
                slot.status.send_modify(|status| {
                    status.completed = ticket;
                    status.error = None;
                    status.complete_at = Some(generation);
                });
                finish.armed = false;
                if embedded > 0 {
                    tracing::info!(
                        repo_root = %repo_root.display(),
                        model = provider.model(),
                        embedded,
                        "project index embeddings complete"
                    );
                }
                return;
            }
            Ok(_) => continue,
            Err(error) => {
                control.running = false;
                tracing::warn!(repo_root = %repo_root.display(), ?error, "project index embedding stopped");
                slot.status.send_modify(|status| {
                    status.completed = control.requested;
                    status.error = Some(error);
                    status.complete_at = None;
                });
                finish.armed = false;
                return;
            }
        }
    }
    let mut control = lock(&slot.control);
    control.running = false;
    slot.status
        .send_modify(|status| status.completed = control.requested);
    finish.armed = false;
}

/// One pass: embeds every chunk text without a vector for the provider's model, committing
/// each batch; returns the texts embedded and the generation at which none was left.
async fn embed_pending(
    state: &IndexState,
    index_dir: &Path,
    provider: &dyn EmbeddingProvider,
    slot: &JobSlot,
) -> Result<(usize, i64), JobError> {
    let model = provider.model().to_string();
    let stop = state.jobs_stop().clone();
    let mut embedded = 0;
    slot.status.send_modify(|status| {
        status.model = model.clone();
        status.done = 0;
        status.total = 0;
    });
    loop {
        let pending = {
            let index_dir = index_dir.to_path_buf();
            let model = model.clone();
            blocking(move |_| {
                let store = Store::open(&index_dir)?;
                let generation = store.generation()?;
                Ok((store.pending_embeddings(&model)?, generation))
            })
            .await
            .map_err(index_error)?
        };
        let (mut pending, generation) = pending;
        // Texts of like length batch together, so that a batch pads little (the local model
        // pads every text of a forward pass to its longest).
        pending.sort_by(|left, right| left.1.len().cmp(&right.1.len()).then(left.0.cmp(&right.0)));
        if pending.is_empty() {
            return Ok((embedded, generation));
        }
        let total = pending.len();
        if embedded == 0 {
            tracing::info!(index_dir = %index_dir.display(), model = %model, pending = total, "project index embedding started");
        }
        slot.status.send_modify(|status| {
            status.done = 0;
            status.total = total;
        });
        let mut done = 0;
        for batch in pending.chunks(provider.batch_size().max(1)) {
            stop.check().map_err(index_error)?;
            let _permit = state.embed_permit().await;
            let texts: Vec<String> = batch.iter().map(|(_, text)| text.clone()).collect();
            let vectors = provider.embed(&texts).await.map_err(JobError::Provider)?;
            if vectors.len() != batch.len() {
                return Err(JobError::Provider(format!(
                    "the embedding provider returned {} vectors for {} texts",
                    vectors.len(),
                    batch.len()
                )));
            }
            let quantized: Vec<_> = batch
                .iter()
                .zip(vectors)
                .map(|((hash, _), mut vector)| {
                    vectors::normalize(&mut vector);
                    (hash.clone(), vectors::quantize(&vector))
                })
                .collect();
            let index_dir = index_dir.to_path_buf();
            let model = model.clone();
            blocking(move |_| Store::open(&index_dir)?.put_vectors(&model, &quantized))
                .await
                .map_err(index_error)?;
            done += batch.len();
            embedded += batch.len();
            slot.status.send_modify(|status| {
                status.done = done;
                status.embedded_ever += batch.len();
            });
        }
        let index_dir = index_dir.to_path_buf();
        blocking(move |_| Store::open(&index_dir)?.collect_vector_garbage())
            .await
            .map_err(index_error)?;
    }
}

fn index_error(error: IndexError) -> JobError {
    JobError::Index(error.to_string())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::embed::EmbedFuture;
    use crate::{IndexSettings, no_progress};

    /// A provider that counts how often it saw each text.
    #[derive(Default)]
    struct Counting {
        seen: Mutex<HashMap<String, usize>>,
        calls: AtomicUsize,
    }

    impl EmbeddingProvider for Counting {
        fn model(&self) -> &str {
            "counting"
        }

        fn batch_size(&self) -> usize {
            4
        }

        fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let mut seen = self.seen.lock().unwrap();
            for text in texts {
                *seen.entry(text.clone()).or_default() += 1;
            }
            let vectors = texts
                .iter()
                .map(|text| vec![text.len() as f32, 1.0])
                .collect();
            Box::pin(async move { Ok(vectors) })
        }
    }

    fn repository(files: usize) -> tempfile::TempDir {
        let repo = tempfile::tempdir().unwrap();
        for index in 0..files {
            std::fs::write(
                repo.path().join(format!("file{index}.rs")),
                format!("pub fn item_{index}() {{}}\n"),
            )
            .unwrap();
        }
        repo
    }

    #[tokio::test]
    async fn one_job_embeds_each_text_once_however_often_it_is_asked_and_a_stop_is_final() {
        let repo = repository(10);
        let root = repo.path().canonicalize().unwrap();
        let settings = IndexSettings::with_defaults(&root.join("models"));
        let state = IndexState::default();
        let provider = Arc::new(Counting::default());
        let (_, status) = crate::refresh::refresh_resolved(
            &state,
            &settings,
            &root,
            &[],
            false,
            Ok(Some(provider.clone() as Arc<dyn EmbeddingProvider>)),
            false,
            false,
            no_progress(),
        )
        .await
        .unwrap();
        assert_eq!(status.reason, Some("indexing"));
        let index_dir = crate::index_dir(&settings, &root);
        let tickets: Vec<u64> = (0..3)
            .map(|_| ensure(&state, &root, &index_dir, provider.clone()))
            .collect();
        for ticket in tickets {
            wait(&state, &index_dir, ticket, &no_progress())
                .await
                .unwrap();
        }
        let seen = provider.seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 10);
        assert!(seen.values().all(|count| *count == 1), "{seen:?}");
        let counts = Store::open(&index_dir)
            .unwrap()
            .embedding_counts("counting")
            .unwrap();
        assert_eq!(counts, (10, 10));

        // A new file after a stop: the job refuses to embed it.
        std::fs::write(root.join("late.rs"), "pub fn late() {}\n").unwrap();
        state.stop_embedding_jobs();
        let error = crate::refresh::refresh_resolved(
            &state,
            &settings,
            &root,
            &[],
            false,
            Ok(Some(provider.clone() as Arc<dyn EmbeddingProvider>)),
            false,
            true,
            no_progress(),
        )
        .await
        .unwrap_err();
        assert!(error.to_string().contains("stopped"), "{error}");
        assert_eq!(provider.seen.lock().unwrap().len(), 10);
    }
}
