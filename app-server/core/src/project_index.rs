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
//!
//! A `repo_root` is named by a client or a model, so it is scoped: once `..` and symbolic links
//! are resolved it must lie inside the base directory or inside one of the operator's
//! `[query_project_index] roots` ([`scoped_repo_root`]); anything else is refused before the
//! index touches it, so nothing is read or written there.

use std::future::Future;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use schemars::JsonSchema;
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

/// Arguments of `query_project` (`spec/query-project.md`); the field comments are the
/// descriptions MCP clients are shown (the model tool describes them relative to the thread's
/// working directory, `engine/tools/query_project.rs`).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryProjectArgs {
    /// Plain-language description of what to find.
    pub query: String,
    /// Results to return; default 8, capped at 200.
    #[serde(default)]
    pub limit: Option<i64>,
    /// Include filters such as `src/**/*.rs`, `docs/**`.
    #[serde(default)]
    pub file_globs: Option<Vec<String>>,
    /// Blend of lexical and embedding scores: 0.0 lexical only, 1.0 embedding only.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    pub alpha: Option<f64>,
    /// Repository to search, inside the server's working directory or a directory listed in the server's `[query_project_index] roots`; default: the server's working directory.
    #[serde(default)]
    pub repo_root: Option<String>,
    /// Overrides the configured embedding model.
    #[serde(default)]
    pub embedding_model: Option<String>,
}

/// Arguments of `repo_index_refresh`; the field comments are the descriptions MCP clients are
/// shown.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoIndexRefreshArgs {
    /// Repository to index, inside the server's working directory or a directory listed in the server's `[query_project_index] roots`; default: the server's working directory.
    #[serde(default)]
    pub repo_root: Option<String>,
    /// Only refresh files matching these globs.
    #[serde(default)]
    pub file_globs: Option<Vec<String>>,
    /// Fail when the embedding provider's credentials or model are unavailable (default false).
    #[serde(default)]
    pub require_embeddings: Option<bool>,
    /// Full rebuild instead of the incremental refresh.
    #[serde(default)]
    pub force_full: Option<bool>,
}

/// Refreshes incrementally, then answers `args.query`, in `args.repo_root` scoped by
/// [`scoped_repo_root`].
pub async fn query(
    config: &QueryProjectIndexConfig,
    base_dir: &Path,
    args: QueryProjectArgs,
    progress: ProgressSink,
) -> Result<QueryOutcome, IndexError> {
    let repo_root = resolve_scoped(config, base_dir, args.repo_root).await?;
    let request = tandem_index::QueryRequest {
        query: args.query,
        limit: args.limit,
        file_globs: args.file_globs,
        alpha: args.alpha,
        repo_root,
        embedding_model: args.embedding_model,
    };
    tandem_index::query(&config.state, &config.settings, request, progress).await
}

/// Refreshes the index (incrementally unless `force_full`) of `args.repo_root` scoped by
/// [`scoped_repo_root`].
pub async fn refresh(
    config: &QueryProjectIndexConfig,
    base_dir: &Path,
    args: RepoIndexRefreshArgs,
    progress: ProgressSink,
) -> Result<RefreshOutcome, IndexError> {
    let repo_root = resolve_scoped(config, base_dir, args.repo_root).await?;
    let request = tandem_index::RefreshRequest {
        repo_root,
        file_globs: args.file_globs,
        require_embeddings: args.require_embeddings,
        force_full: args.force_full.unwrap_or(false),
        embedding_model: None,
    };
    tandem_index::refresh(&config.state, &config.settings, request, progress).await
}

/// `argument` resolved against `base_dir` (an absolute `argument` stands alone), as written:
/// not checked, for display only ([`scoped_repo_root`] is the check).
pub fn repo_root(base_dir: &Path, argument: Option<&str>) -> PathBuf {
    match argument {
        Some(path) => base_dir.join(path),
        None => base_dir.to_path_buf(),
    }
}

/// [`scoped_repo_root`] on the blocking pool (it reads the file system).
async fn resolve_scoped(
    config: &QueryProjectIndexConfig,
    base_dir: &Path,
    argument: Option<String>,
) -> Result<PathBuf, IndexError> {
    let roots = config.roots.clone();
    let base_dir = base_dir.to_path_buf();
    tokio::task::spawn_blocking(move || scoped_repo_root(&base_dir, &roots, argument.as_deref()))
        .await
        .map_err(|error| IndexError::Io(format!("the repo_root check failed: {error}")))?
}

/// The canonical repository root named by `argument` (relative to `base_dir`; `None` is
/// `base_dir` itself), provided that it lies inside `base_dir` or inside one of `roots` once
/// `..` and symbolic links are resolved; anything else is an [`IndexError::InvalidInput`]
/// naming the `roots` setting. A path outside them is refused on its face, before anything
/// there is looked at, so the answer says nothing about what exists outside. Blocking.
pub fn scoped_repo_root(
    base_dir: &Path,
    roots: &[PathBuf],
    argument: Option<&str>,
) -> Result<PathBuf, IndexError> {
    let requested = normalize(&repo_root(base_dir, argument));
    let allowed: Vec<(PathBuf, Option<PathBuf>)> = std::iter::once(base_dir)
        .chain(roots.iter().map(PathBuf::as_path))
        .map(|dir| (normalize(dir), dir.canonicalize().ok()))
        .collect();
    let outside = || {
        IndexError::InvalidInput(format!(
            "repo_root `{}` is outside the directories the project index may use: `{}` and those listed in `[query_project_index] roots` (config.toml, or `-c 'query_project_index.roots=[\"/path\"]'`); add it to `roots` to allow it",
            argument.unwrap_or("."),
            base_dir.display()
        ))
    };
    let plausible = allowed.iter().any(|(lexical, canonical)| {
        requested.starts_with(lexical)
            || canonical
                .as_ref()
                .is_some_and(|canonical| requested.starts_with(canonical))
    });
    if !plausible {
        return Err(outside());
    }
    let resolved = tandem_index::resolve_repo_root(&requested)?;
    let inside = allowed.iter().any(|(_, canonical)| {
        canonical
            .as_ref()
            .is_some_and(|canonical| resolved.starts_with(canonical))
    });
    if !inside {
        return Err(outside());
    }
    Ok(resolved)
}

/// `path` with `.` and `..` components resolved as written (a `..` at the root stays there).
fn normalize(path: &Path) -> PathBuf {
    let mut normalized = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normalized.pop();
            }
            other => normalized.push(other),
        }
    }
    normalized
}

/// Whether `dir` is a repository's root (it holds `.git`, a directory or a worktree's file):
/// the only directory that auto-warm indexes unasked. Blocking (one `stat`).
pub fn is_repository_root(dir: &Path) -> bool {
    dir.join(".git").exists()
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

    /// A base directory holding `repo/`, beside `outside/` (with a `secret.txt`), `listed/`
    /// and a symbolic link `repo/escape` to `outside/`.
    fn layout() -> (tempfile::TempDir, PathBuf) {
        let top = tempfile::tempdir().unwrap();
        let top_path = top.path().canonicalize().unwrap();
        for dir in ["base/repo/sub", "outside", "listed/project"] {
            std::fs::create_dir_all(top_path.join(dir)).unwrap();
        }
        std::fs::write(top_path.join("outside/secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(top_path.join("outside"), top_path.join("base/repo/escape"))
            .unwrap();
        (top, top_path)
    }

    #[test]
    fn repo_roots_stay_inside_the_base_directory_and_the_listed_roots() {
        let (_top, top) = layout();
        let base = top.join("base");
        let roots = vec![top.join("listed")];
        let allowed = |argument: Option<&str>| scoped_repo_root(&base, &roots, argument);
        assert_eq!(allowed(None).unwrap(), base);
        assert_eq!(allowed(Some("repo")).unwrap(), base.join("repo"));
        assert_eq!(
            allowed(Some("repo/sub/../sub")).unwrap(),
            base.join("repo/sub")
        );
        assert_eq!(
            allowed(Some(&top.join("listed/project").display().to_string())).unwrap(),
            top.join("listed/project")
        );
        assert_eq!(allowed(Some("../listed")).unwrap(), top.join("listed"));
        let outside = top.join("outside").display().to_string();
        for refused in [
            outside.as_str(),
            "../outside",
            "repo/../../outside",
            "repo/escape",
            "/",
        ] {
            let error = allowed(Some(refused)).unwrap_err().to_string();
            assert!(
                error.contains("is outside") && error.contains("[query_project_index] roots"),
                "{refused}: {error}"
            );
        }
        // A path outside is refused on its face: whether it exists is not revealed.
        let missing = allowed(Some("/no/such/dir")).unwrap_err().to_string();
        assert!(missing.contains("is outside"), "{missing}");
        let missing_inside = allowed(Some("repo/missing")).unwrap_err().to_string();
        assert!(
            missing_inside.contains("does not exist"),
            "{missing_inside}"
        );
    }

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
