//! The project-index tools, `query_project` and `repo_index_refresh`
//! (`spec/query-project.md`): their `tools/list` entries, argument decoding, the call into the
//! index engine (`tandem-index`) with `notifications/progress` when the call has a progress
//! token, the auto-warm refresh after `notifications/initialized`, and the result shapes: the
//! payload as a JSON string in `content[0].text` and as an object in `structuredContent`.

use std::path::PathBuf;
use std::sync::Arc;

use app_server_protocol::jsonrpc::RequestId;
use serde::Deserialize;
use serde_json::{Value, json};
use tandem_index::{IndexError, Progress, ProgressSink};
use tokio::sync::mpsc;

use crate::config::QueryProjectIndexConfig;
use crate::mcp::output::{Outbound, Route};

/// Name of the search tool.
pub const QUERY_PROJECT_TOOL: &str = "query_project";
/// Name of the refresh tool.
pub const REPO_INDEX_REFRESH_TOOL: &str = "repo_index_refresh";

/// Arguments of `query_project`.
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
    /// Repository root (default: the server's working directory).
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
    /// Repository root (default: the server's working directory).
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

/// The two tools' `tools/list` entries.
pub fn tool_definitions() -> Vec<Value> {
    vec![query_project_tool(), repo_index_refresh_tool()]
}

fn query_project_tool() -> Value {
    json!({
        "name": QUERY_PROJECT_TOOL,
        "title": "Search the project",
        "description": "Search the repository before reading files: returns ranked snippets (path, line range, text, score) from a hybrid lexical + embedding index. The index is refreshed incrementally first.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Plain-language description of what to find."},
                "limit": {"type": "integer", "description": "Results to return; default 8, capped at 200."},
                "file_globs": {"type": "array", "items": {"type": "string"}, "description": "Include filters such as `src/**/*.rs`, `docs/**`."},
                "alpha": {"type": "number", "minimum": 0, "maximum": 1, "description": "Blend of lexical and embedding scores: 0.0 lexical only, 1.0 embedding only."},
                "repo_root": {"type": "string", "description": "Repository to search; default: the server's working directory."},
                "embedding_model": {"type": "string", "description": "Overrides the configured embedding model."},
            },
            "required": ["query"],
            "additionalProperties": false,
        },
        "outputSchema": {
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
        },
        "annotations": {"title": "Search the project", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
    })
}

fn repo_index_refresh_tool() -> Value {
    json!({
        "name": REPO_INDEX_REFRESH_TOOL,
        "title": "Refresh the project index",
        "description": "Warm or rebuild the project index used by `query_project`. Sends notifications/progress (files scanned, chunks embedded) when the call has a progressToken.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "repo_root": {"type": "string", "description": "Repository to index; default: the server's working directory."},
                "file_globs": {"type": "array", "items": {"type": "string"}, "description": "Only refresh files matching these globs."},
                "require_embeddings": {"type": "boolean", "description": "Fail when the embedding provider's credentials or model are unavailable (default false)."},
                "force_full": {"type": "boolean", "description": "Full rebuild instead of the incremental refresh."},
            },
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "repo_root": {"type": "string"},
                "stats": stats_schema(),
                "embedding_status": embedding_status_schema(),
            },
            "required": ["repo_root", "stats", "embedding_status"],
        },
        "annotations": {"title": "Refresh the project index", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
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
            "reason": {"type": "string", "enum": ["missing_api_key", "embedding_query_failed", "model_not_installed"]},
            "detail": {"type": "string"},
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

/// Runs `query_project`.
pub async fn call_query_project(
    config: &QueryProjectIndexConfig,
    args: QueryProjectArgs,
    progress: Option<ProgressTarget>,
) -> Value {
    let request = tandem_index::QueryRequest {
        query: args.query,
        limit: args.limit,
        file_globs: args.file_globs,
        alpha: args.alpha,
        repo_root: repo_root(args.repo_root),
        embedding_model: args.embedding_model,
    };
    let (sink, forwarder) = progress_sink(progress);
    let outcome = tandem_index::query(&config.settings, request, sink).await;
    finish(forwarder).await;
    payload_result(outcome)
}

/// Runs `repo_index_refresh`.
pub async fn call_repo_index_refresh(
    config: &QueryProjectIndexConfig,
    args: RepoIndexRefreshArgs,
    progress: Option<ProgressTarget>,
) -> Value {
    let request = tandem_index::RefreshRequest {
        repo_root: repo_root(args.repo_root),
        file_globs: args.file_globs,
        require_embeddings: args.require_embeddings,
        force_full: args.force_full.unwrap_or(false),
        embedding_model: None,
    };
    let (sink, forwarder) = progress_sink(progress);
    let outcome = tandem_index::refresh(&config.settings, request, sink).await;
    finish(forwarder).await;
    payload_result(outcome)
}

/// Starts the background warm-up of the working directory (auto-warm); it never blocks the
/// caller, and a `query_project` arriving meanwhile waits for it instead of refreshing twice.
pub fn spawn_auto_warm(config: &QueryProjectIndexConfig) {
    // Every session warms the same directory (the server's own), so only the first one in the
    // process does: later sessions would each rescan the whole tree for nothing, and queries
    // refresh incrementally anyway.
    static WARM_STARTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !config.auto_warm || WARM_STARTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let settings = config.settings.clone();
    tokio::spawn(async move {
        let request = tandem_index::RefreshRequest {
            repo_root: repo_root(None),
            file_globs: None,
            require_embeddings: Some(false),
            force_full: false,
            embedding_model: None,
        };
        match tandem_index::refresh(&settings, request, tandem_index::no_progress()).await {
            Ok(outcome) => {
                tracing::info!(repo_root = %outcome.repo_root, stats = ?outcome.stats, "project index warmed")
            }
            Err(error) => tracing::warn!(%error, "project index warm-up failed"),
        }
    });
}

fn repo_root(argument: Option<String>) -> PathBuf {
    let working_dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match argument {
        Some(path) => working_dir.join(path),
        None => working_dir,
    }
}

/// A progress sink feeding a bounded queue (progress is lossy when the client is slow) and the
/// task that turns it into `notifications/progress`.
fn progress_sink(
    target: Option<ProgressTarget>,
) -> (ProgressSink, Option<tokio::task::JoinHandle<()>>) {
    let Some(target) = target else {
        return (tandem_index::no_progress(), None);
    };
    let (sender, mut receiver) = mpsc::channel::<Progress>(64);
    let forwarder = tokio::spawn(async move {
        let mut count: u64 = 0;
        while let Some(progress) = receiver.recv().await {
            count += 1;
            let (message, total) = describe(progress);
            let mut params =
                json!({"progressToken": target.token, "progress": count, "message": message});
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
    let sink: ProgressSink = Arc::new(move |progress| {
        let _ = sender.try_send(progress);
    });
    (sink, Some(forwarder))
}

async fn finish(forwarder: Option<tokio::task::JoinHandle<()>>) {
    if let Some(forwarder) = forwarder {
        // The sink (and with it the sender) is dropped by now, so the task ends after the
        // queued notifications, which therefore precede the response.
        let _ = forwarder.await;
    }
}

/// A human-readable progress message; `total` is left out because `progress` counts
/// notifications, not files.
fn describe(progress: Progress) -> (String, Option<u64>) {
    match progress {
        Progress::Scanned { files } => (format!("scanned {files} files"), None),
        Progress::Indexed { done, total } => {
            (format!("indexed {done}/{total} changed files"), None)
        }
        Progress::Embedded { done, total } => (format!("embedded {done}/{total} chunks"), None),
    }
}

fn payload_result<T: serde::Serialize>(outcome: Result<T, IndexError>) -> Value {
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

fn error_result(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}
