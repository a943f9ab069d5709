//! The project index (`tandem-index`) as the binary's three front ends use it: the MCP tools
//! `query_project` and `repo_index_refresh` (`mcp/index_tools.rs`), the experimental
//! app-server methods `index/query` and `index/refresh` (`processor/index_requests.rs`) and the
//! agent's own `query_project` model tool (`engine/tools/query_project.rs`).
//!
//! Every front end decodes its input into the same argument types, resolves `repo_root` against
//! its own base directory (the server's working directory, or a thread's cwd), and calls
//! [`query`] or [`refresh`] here; only the envelope differs. Progress leaves the index as
//! [`Progress`] values through a bounded, lossy queue ([`ProgressForwarder`]) so that a slow
//! client never slows a refresh down.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use tandem_index::{IndexError, Progress, ProgressSink, QueryOutcome, RefreshOutcome};
use tokio::sync::mpsc;

use crate::config::QueryProjectIndexConfig;

/// Name of the search tool (MCP and model tool alike).
pub const QUERY_PROJECT_TOOL: &str = "query_project";
/// Name of the refresh tool.
pub const REPO_INDEX_REFRESH_TOOL: &str = "repo_index_refresh";

/// Progress values queued for a slow client before later ones are dropped.
const PROGRESS_QUEUE: usize = 64;

/// Arguments of `query_project` (`spec/query-project.md`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryProjectArgs {
    /// What to find.
    pub query: String,
    /// Results wanted (default 8, clamped to 1..=200).
    #[serde(default)]
    pub limit: Option<i64>,
    /// Include globs.
    #[serde(default)]
    pub file_globs: Option<Vec<String>>,
    /// Lexical/embedding blend.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Repository root, relative to the caller's base directory (default: that directory).
    #[serde(default)]
    pub repo_root: Option<String>,
    /// Model override.
    #[serde(default)]
    pub embedding_model: Option<String>,
}

/// Arguments of `repo_index_refresh`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoIndexRefreshArgs {
    /// Repository root, relative to the caller's base directory (default: that directory).
    #[serde(default)]
    pub repo_root: Option<String>,
    /// Include globs.
    #[serde(default)]
    pub file_globs: Option<Vec<String>>,
    /// Fail when embeddings are unavailable.
    #[serde(default)]
    pub require_embeddings: Option<bool>,
    /// Full rebuild.
    #[serde(default)]
    pub force_full: Option<bool>,
}

/// Refreshes incrementally, then answers `args.query`.
pub async fn query(
    config: &QueryProjectIndexConfig,
    base_dir: &Path,
    args: QueryProjectArgs,
    progress: ProgressSink,
) -> Result<QueryOutcome, IndexError> {
    let request = tandem_index::QueryRequest {
        query: args.query,
        limit: args.limit,
        file_globs: args.file_globs,
        alpha: args.alpha,
        repo_root: repo_root(base_dir, args.repo_root.as_deref()),
        embedding_model: args.embedding_model,
    };
    tandem_index::query(&config.settings, request, progress).await
}

/// Refreshes the index (incrementally unless `force_full`).
pub async fn refresh(
    config: &QueryProjectIndexConfig,
    base_dir: &Path,
    args: RepoIndexRefreshArgs,
    progress: ProgressSink,
) -> Result<RefreshOutcome, IndexError> {
    let request = tandem_index::RefreshRequest {
        repo_root: repo_root(base_dir, args.repo_root.as_deref()),
        file_globs: args.file_globs,
        require_embeddings: args.require_embeddings,
        force_full: args.force_full.unwrap_or(false),
        embedding_model: None,
    };
    tandem_index::refresh(&config.settings, request, progress).await
}

/// `argument` resolved against `base_dir` (an absolute `argument` stands alone).
pub fn repo_root(base_dir: &Path, argument: Option<&str>) -> PathBuf {
    match argument {
        Some(path) => base_dir.join(path),
        None => base_dir.to_path_buf(),
    }
}

/// The server process's working directory, the base of the MCP tools and app-server methods.
pub fn server_working_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// A payload as an MCP `CallToolResult`: the JSON as text in `content[0].text` and as an object
/// in `structuredContent`; an error is an `isError` result with the message.
pub fn tool_result<T: serde::Serialize>(outcome: Result<T, IndexError>) -> Value {
    match outcome.map(|payload| serde_json::to_value(payload)) {
        Ok(Ok(payload)) => json!({
            "content": [{"type": "text", "text": payload.to_string()}],
            "structuredContent": payload,
            "isError": false,
        }),
        Ok(Err(error)) => error_result(&format!("cannot encode the result: {error}")),
        Err(error) => error_result(&error.to_string()),
    }
}

/// An `isError` tool result.
pub fn error_result(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

/// Whether the agent is offered `query_project` for a thread whose cwd is `cwd`: the model tool
/// is enabled (`model_tool`), `cwd` is a readable directory, and it is a project, meaning that
/// it or one of its ancestors holds `.git`, or it already has an index (made by `tandem index
/// refresh` or an MCP client). The project condition keeps a thread started in a home directory
/// or `/` from indexing everything below it. Blocking (a few `stat`s): call it off the async
/// workers.
pub fn offered_for(config: &QueryProjectIndexConfig, cwd: &Path) -> bool {
    if !config.model_tool || std::fs::read_dir(cwd).is_err() {
        return false;
    }
    cwd.ancestors().any(|dir| dir.join(".git").exists())
        || tandem_index::index_dir(&config.settings, cwd).is_dir()
}

/// The task that turns a refresh's [`Progress`] into a front end's messages, in order, after
/// the refresh reports them through its [`ProgressSink`].
pub struct ProgressForwarder {
    task: tokio::task::JoinHandle<()>,
}

impl ProgressForwarder {
    /// A sink for the index and the task that calls `send` for each value it queues. The queue
    /// is bounded and lossy: when `send` falls behind, newer values are dropped, never the
    /// refresh delayed.
    pub fn start<F, Fut>(mut send: F) -> (ProgressSink, ProgressForwarder)
    where
        F: FnMut(Progress) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send,
    {
        let (sender, mut receiver) = mpsc::channel::<Progress>(PROGRESS_QUEUE);
        let task = tokio::spawn(async move {
            while let Some(progress) = receiver.recv().await {
                send(progress).await;
            }
        });
        let sink: ProgressSink = Arc::new(move |progress| {
            let _ = sender.try_send(progress);
        });
        (sink, ProgressForwarder { task })
    }

    /// Waits until every queued value is sent. Call it once the refresh returned (and with it
    /// dropped the sink), so that the progress messages precede the answer.
    pub async fn finish(self) {
        if let Err(error) = self.task.await {
            tracing::warn!(%error, "the progress forwarder failed");
        }
    }
}

/// Turns the index's per-phase progress into one MCP progress scale, which must increase with
/// every notification: a unit of work is a file scanned, a changed file indexed or a chunk
/// embedded, `progress` counts the units done and `total` the units known so far (unknown
/// while the walk runs; it grows when a later phase learns its size).
#[derive(Debug, Default)]
pub struct ProgressScale {
    scanned: u64,
    indexing_total: u64,
    last: Option<u64>,
}

impl ProgressScale {
    /// `(progress, total, message)` for `progress`, or `None` when it would not advance the
    /// scale (an MCP client must see `progress` increase).
    pub fn step(&mut self, progress: Progress) -> Option<(u64, Option<u64>, String)> {
        let (value, total, message) = match progress {
            Progress::Scanned { files } => {
                self.scanned = files as u64;
                (self.scanned, None, format!("scanned {files} files"))
            }
            Progress::Indexed { done, total } => {
                self.indexing_total = total as u64;
                (
                    self.scanned + done as u64,
                    Some(self.scanned + total as u64),
                    format!("indexed {done}/{total} changed files"),
                )
            }
            Progress::Embedded { done, total } => {
                let before = self.scanned + self.indexing_total;
                (
                    before + done as u64,
                    Some(before + total as u64),
                    format!("embedded {done}/{total} chunks"),
                )
            }
        };
        if self.last.is_some_and(|last| value <= last) {
            return None;
        }
        self.last = Some(value);
        Some((value, total, message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_increases_across_phases_and_knows_its_total_after_the_walk() {
        let mut scale = ProgressScale::default();
        let steps: Vec<_> = [
            Progress::Scanned { files: 10 },
            Progress::Indexed { done: 0, total: 4 },
            Progress::Indexed { done: 4, total: 4 },
            Progress::Embedded { done: 0, total: 6 },
            Progress::Embedded { done: 6, total: 6 },
        ]
        .into_iter()
        .filter_map(|progress| scale.step(progress))
        .map(|(value, total, _)| (value, total))
        .collect();
        assert_eq!(
            steps,
            vec![(10, None), (14, Some(14)), (20, Some(20))],
            "steps that would not advance are dropped"
        );
    }
}
