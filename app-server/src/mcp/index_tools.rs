//! The project-index tools, `query_project` and `repo_index_refresh`
//! (`spec/query-project.md`), on the MCP side: their registered [`Tool`]s and `tools/list`
//! listings, `notifications/progress` when the call has a progress token, cancellation, and the
//! auto-warm refresh after `notifications/initialized` in a repository's root. The arguments, the call into the index
//! (with its `repo_root` scope) and the result shape (the payload as a JSON string in
//! `content[0].text` and as an object in `structuredContent`) are `project_index`'s, shared with
//! the app-server methods and the agent's model tool.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use app_server_protocol::jsonrpc::RequestId;
use serde_json::{Value, json};
use tandem_core::tools::{Tool, ToolFuture};
use tandem_index::ProgressSink;
use tokio_util::sync::CancellationToken;

use crate::mcp::output::{Outbound, Route};
use crate::mcp::tools::{Listing, McpCall, McpOutcome};
use tandem_core::config::QueryProjectIndexConfig;
use tandem_core::project_index::{
    self, ProgressForwarder, ProgressScale, QUERY_PROJECT_TOOL, QueryProjectArgs,
    REPO_INDEX_REFRESH_TOOL, RepoIndexRefreshArgs,
};

/// `query_project`: ranked snippets from the project index of the server's working directory
/// (or `repo_root`).
pub struct QueryProjectTool;

impl Tool for QueryProjectTool {
    const NAME: &'static str = QUERY_PROJECT_TOOL;
    const DESCRIPTION: &'static str = "Search the repository before reading files: returns ranked snippets (path, line range, text, score) from a hybrid lexical + embedding index. The index is refreshed incrementally first; it answers at once on a repository whose embeddings are still being computed in the background (embedding_status.reason `indexing`, with progress).";
    type Args = QueryProjectArgs;
    type Context<'a> = McpCall<'a>;
    type Output = McpOutcome;

    fn run<'a>(call: Self::Context<'a>, args: QueryProjectArgs) -> ToolFuture<'a, McpOutcome> {
        Box::pin(async move {
            let progress = progress_target(&call);
            let config = &call.session.engine.config().query_project_index;
            call_query_project(config, args, progress, call.cancel)
                .await
                .map(Ok)
        })
    }
}

/// `repo_index_refresh`: warms or rebuilds the project index.
pub struct RepoIndexRefreshTool;

impl Tool for RepoIndexRefreshTool {
    const NAME: &'static str = REPO_INDEX_REFRESH_TOOL;
    const DESCRIPTION: &'static str = "Warm or rebuild the project index used by `query_project`. Sends notifications/progress (files scanned, chunks embedded) when the call has a progressToken.";
    type Args = RepoIndexRefreshArgs;
    type Context<'a> = McpCall<'a>;
    type Output = McpOutcome;

    fn run<'a>(call: Self::Context<'a>, args: RepoIndexRefreshArgs) -> ToolFuture<'a, McpOutcome> {
        Box::pin(async move {
            let progress = progress_target(&call);
            let config = &call.session.engine.config().query_project_index;
            call_repo_index_refresh(config, args, progress, call.cancel)
                .await
                .map(Ok)
        })
    }
}

/// How `tools/list` shows `query_project`.
pub const QUERY_PROJECT_LISTING: Listing = Listing {
    title: "Search the project",
    output_schema: Some(query_project_output_schema),
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// How `tools/list` shows `repo_index_refresh`.
pub const REPO_INDEX_REFRESH_LISTING: Listing = Listing {
    title: "Refresh the project index",
    output_schema: Some(repo_index_refresh_output_schema),
    read_only: false,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// Where a call's progress goes, when the call has a progress token.
fn progress_target(call: &McpCall<'_>) -> Option<ProgressTarget> {
    call.progress_token.clone().map(|token| ProgressTarget {
        outbound: call.session.shared.outbound.clone(),
        request_id: call.id.clone(),
        token,
    })
}

fn query_project_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "repo_root": {"type": "string"},
            "query": {"type": "string"},
            "limit": {"type": "integer"},
            "alpha": {"type": "number"},
            "embedding_model": {"type": "string"},
            "embedding_status": embedding_status_schema(),
            "refresh": stats_schema(),
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "Relative to the repository root."},
                        "line_range": {"type": "object", "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}}, "required": ["start", "end"]},
                        "snippet": {"type": "string"},
                        "score": {"type": "number"},
                    },
                    "required": ["path", "line_range", "snippet", "score"],
                },
            },
        },
        "required": ["repo_root", "query", "limit", "alpha", "embedding_model", "embedding_status", "refresh", "results"],
    })
}

fn repo_index_refresh_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "repo_root": {"type": "string"},
            "stats": stats_schema(),
            "embedding_status": embedding_status_schema(),
        },
        "required": ["repo_root", "stats", "embedding_status"],
    })
}

fn stats_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "scanned_files": {"type": "integer"},
            "updated_files": {"type": "integer"},
            "removed_files": {"type": "integer"},
            "indexed_chunks": {"type": "integer"},
            "skipped_files": {"type": "integer"},
            "embedded_chunks": {"type": "integer"},
        },
        "required": ["scanned_files", "updated_files", "removed_files", "indexed_chunks"],
    })
}

fn embedding_status_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "mode_used": {"type": "string", "enum": ["skip", "optional", "required"]},
            "ready": {"type": "boolean"},
            "reason": {"type": "string", "enum": ["missing_api_key", "embedding_query_failed", "model_not_installed", "indexing"]},
            "detail": {"type": "string"},
            "progress": {
                "type": "object",
                "description": "With reason `indexing`: chunks embedded so far (they already take part in the ranking) of the chunks in the index.",
                "properties": {"embedded_chunks": {"type": "integer"}, "total_chunks": {"type": "integer"}},
                "required": ["embedded_chunks", "total_chunks"],
            },
        },
        "required": ["mode_used", "ready"],
    })
}

/// Where a call's progress goes.
pub struct ProgressTarget {
    /// The session's sending half.
    pub outbound: Arc<dyn Outbound>,
    /// The call.
    pub request_id: RequestId,
    /// The call's `_meta.progressToken`.
    pub token: Value,
}

/// Runs `query_project`; `None` when `cancel` fires first (the session's
/// `notifications/cancelled` or its end), which also stops the index work.
pub async fn call_query_project(
    config: &QueryProjectIndexConfig,
    args: QueryProjectArgs,
    progress: Option<ProgressTarget>,
    cancel: CancellationToken,
) -> Option<Value> {
    let (sink, forwarder) = progress_sink(progress);
    let base_dir = project_index::server_working_dir();
    let work = project_index::query(config, &base_dir, args, sink);
    answer(work, forwarder, cancel).await
}

/// Runs `repo_index_refresh`; `None` when `cancel` fires first, as for `query_project`.
pub async fn call_repo_index_refresh(
    config: &QueryProjectIndexConfig,
    args: RepoIndexRefreshArgs,
    progress: Option<ProgressTarget>,
    cancel: CancellationToken,
) -> Option<Value> {
    let (sink, forwarder) = progress_sink(progress);
    let base_dir = project_index::server_working_dir();
    let work = project_index::refresh(config, &base_dir, args, sink);
    answer(work, forwarder, cancel).await
}

/// The tool result of `work`, after its progress; `None` when `cancel` fires first. Dropping
/// `work` stops the index's blocking jobs at their next check (`tandem_index::stop`), so a
/// cancelled call or a session that ends never leaves a refresh running behind it.
async fn answer<T: serde::Serialize>(
    work: impl Future<Output = Result<T, tandem_index::IndexError>>,
    forwarder: Option<ProgressForwarder>,
    cancel: CancellationToken,
) -> Option<Value> {
    let outcome = tokio::select! {
        biased;
        () = cancel.cancelled() => None,
        outcome = work => Some(outcome),
    };
    match outcome {
        Some(outcome) => {
            finish(forwarder).await;
            Some(project_index::tool_result(outcome))
        }
        // Nobody waits for the progress of a cancelled call; the forwarder ends by itself
        // once the stopped job drops its sink.
        None => None,
    }
}

/// Starts the background warm-up of the working directory (auto-warm) when it is a
/// repository's root (it holds `.git`): a server started in a home directory or in `/` must
/// not index everything below it unasked. It never blocks the caller, and a `query_project`
/// arriving meanwhile waits for it instead of refreshing twice.
///
/// Every session of a server warms the same directory (the server's own), so only the first
/// one does, the one that sets the server's `started`: later sessions would each rescan the
/// whole tree for nothing, and queries refresh incrementally anyway.
pub fn spawn_auto_warm(config: &QueryProjectIndexConfig, started: &AtomicBool) {
    if !config.auto_warm || started.swap(true, Ordering::Relaxed) {
        return;
    }
    let config = config.clone();
    tokio::spawn(async move {
        let base_dir = project_index::server_working_dir();
        let checked = base_dir.clone();
        let repository =
            tokio::task::spawn_blocking(move || project_index::is_repository_root(&checked))
                .await
                .unwrap_or(false);
        if !repository {
            tracing::info!(
                dir = %base_dir.display(),
                "project index warm-up skipped: the working directory holds no .git"
            );
            return;
        }
        let args = RepoIndexRefreshArgs {
            repo_root: None,
            file_globs: None,
            require_embeddings: Some(false),
            force_full: None,
        };
        match project_index::refresh(&config, &base_dir, args, tandem_index::no_progress()).await {
            Ok(outcome) => {
                tracing::info!(repo_root = %outcome.repo_root, stats = ?outcome.stats, "project index warmed")
            }
            Err(error) => tracing::warn!(%error, "project index warm-up failed"),
        }
    });
}

/// A progress sink whose values become `notifications/progress` on the call's stream, with
/// `progress` on one increasing scale across the phases and `total` once it is known
/// ([`ProgressScale`]).
fn progress_sink(target: Option<ProgressTarget>) -> (ProgressSink, Option<ProgressForwarder>) {
    let Some(target) = target else {
        return (tandem_index::no_progress(), None);
    };
    let target = Arc::new(target);
    let scale = Arc::new(Mutex::new(ProgressScale::default()));
    let (sink, forwarder) = ProgressForwarder::start(move |progress| {
        let target = target.clone();
        let step = tandem_core::sync::lock(&scale).step(progress);
        async move {
            let Some((value, total, message)) = step else {
                return;
            };
            let mut params =
                json!({"progressToken": target.token, "progress": value, "message": message});
            if let Some(total) = total {
                params["total"] = json!(total);
            }
            let message =
                json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params});
            target
                .outbound
                .send(Route::Request(target.request_id.clone()), message)
                .await;
        }
    });
    (sink, Some(forwarder))
}

async fn finish(forwarder: Option<ProgressForwarder>) {
    if let Some(forwarder) = forwarder {
        forwarder.finish().await;
    }
}
