//! `index/query` and `index/refresh`: the project index's MCP tools for IDE clients, through the
//! shared `project_index` entry points, with `index/progress` notifications to the requesting
//! connection before the response.
//!
//! Errors: bad arguments (empty query, `alpha` out of range, a bad glob, a `repoRoot` that does
//! not exist, is not a directory or is not readable, or that lies outside the server's working
//! directory and the `[query_project_index] roots`, which the message names) and embeddings that
//! `requireEmbeddings` demands but that are unavailable are `-32600` with the reason; a
//! file-system or database failure of the index is `-32603`.

use std::path::Path;
use std::sync::Arc;

use app_server_protocol::index::{
    IndexEmbeddingMode, IndexEmbeddingProgress, IndexEmbeddingStatus, IndexEmbeddingUnavailable,
    IndexLineRange, IndexProgressNotification, IndexProgressPhase, IndexQueryParams,
    IndexQueryResponse, IndexQueryResult, IndexRefreshParams, IndexRefreshResponse,
    IndexRefreshStats,
};
use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use app_server_protocol::tables::ServerNotification;
use tandem_index::{
    EmbeddingStatus, IndexError, Progress, ProgressSink, QueryOutcome, RefreshOutcome, RefreshStats,
};

use crate::outgoing::OutgoingSender;
use crate::processor::Processor;
use crate::rpc_error::{internal_error, invalid_request};
use tandem_core::project_index::{self, ProgressForwarder, QueryProjectArgs, RepoIndexRefreshArgs};

impl Processor {
    /// `index/query`.
    pub(super) async fn index_query(
        &self,
        params: IndexQueryParams,
    ) -> Result<IndexQueryResponse, JsonRpcErrorBody> {
        let base_dir = project_index::server_working_dir();
        let root = project_index::repo_root(&base_dir, params.repo_root.as_deref());
        let args = QueryProjectArgs {
            query: params.query,
            limit: params.limit,
            file_globs: params.file_globs,
            alpha: params.alpha,
            repo_root: params.repo_root,
            embedding_model: params.embedding_model,
        };
        let config = &self.engine.config().query_project_index;
        let (sink, forwarder) = progress_sink(self.outgoing.clone(), &root);
        let outcome = project_index::query(config, &base_dir, args, sink).await;
        forwarder.finish().await;
        outcome
            .map(query_response)
            .map_err(|error| index_error(&error))
    }

    /// `index/refresh`.
    pub(super) async fn index_refresh(
        &self,
        params: IndexRefreshParams,
    ) -> Result<IndexRefreshResponse, JsonRpcErrorBody> {
        let base_dir = project_index::server_working_dir();
        let root = project_index::repo_root(&base_dir, params.repo_root.as_deref());
        let args = RepoIndexRefreshArgs {
            repo_root: params.repo_root,
            file_globs: params.file_globs,
            require_embeddings: params.require_embeddings,
            force_full: params.force_full,
        };
        let config = &self.engine.config().query_project_index;
        let (sink, forwarder) = progress_sink(self.outgoing.clone(), &root);
        let outcome = project_index::refresh(config, &base_dir, args, sink).await;
        forwarder.finish().await;
        outcome
            .map(refresh_response)
            .map_err(|error| index_error(&error))
    }
}

/// A sink whose progress becomes `index/progress` on this connection.
fn progress_sink(
    outgoing: Arc<OutgoingSender>,
    repo_root: &Path,
) -> (ProgressSink, ProgressForwarder) {
    let repo_root = repo_root.display().to_string();
    ProgressForwarder::start(move |progress| {
        let (phase, done, total) = match progress {
            Progress::Scanned { files } => (IndexProgressPhase::Scanning, files, None),
            Progress::Indexed { done, total } => (IndexProgressPhase::Indexing, done, Some(total)),
            Progress::Embedded { done, total } => {
                (IndexProgressPhase::Embedding, done, Some(total))
            }
        };
        let notification = ServerNotification::IndexProgress(IndexProgressNotification {
            repo_root: repo_root.clone(),
            phase,
            done: done as i64,
            total: total.map(|total| total as i64),
        });
        let outgoing = outgoing.clone();
        async move { outgoing.send_notification(&notification).await }
    })
}

fn index_error(error: &IndexError) -> JsonRpcErrorBody {
    match error {
        IndexError::InvalidInput(_) | IndexError::EmbeddingsRequired { .. } => {
            invalid_request(error.to_string())
        }
        _ => internal_error(error.to_string()),
    }
}

fn query_response(outcome: QueryOutcome) -> IndexQueryResponse {
    IndexQueryResponse {
        repo_root: outcome.repo_root,
        query: outcome.query,
        limit: outcome.limit as i64,
        alpha: outcome.alpha,
        embedding_model: outcome.embedding_model,
        embedding_status: embedding_status(outcome.embedding_status),
        refresh: stats(&outcome.refresh),
        results: outcome
            .results
            .into_iter()
            .map(|result| IndexQueryResult {
                path: result.path,
                line_range: IndexLineRange {
                    start: result.line_range.start as i64,
                    end: result.line_range.end as i64,
                },
                snippet: result.snippet,
                score: result.score,
            })
            .collect(),
    }
}

fn refresh_response(outcome: RefreshOutcome) -> IndexRefreshResponse {
    IndexRefreshResponse {
        repo_root: outcome.repo_root,
        stats: stats(&outcome.stats),
        embedding_status: embedding_status(outcome.embedding_status),
    }
}

fn stats(stats: &RefreshStats) -> IndexRefreshStats {
    IndexRefreshStats {
        scanned_files: stats.scanned_files as i64,
        updated_files: stats.updated_files as i64,
        removed_files: stats.removed_files as i64,
        indexed_chunks: stats.indexed_chunks as i64,
        skipped_files: stats.skipped_files as i64,
        embedded_chunks: stats.embedded_chunks as i64,
    }
}

fn embedding_status(status: EmbeddingStatus) -> IndexEmbeddingStatus {
    let mode_used = match status.mode_used {
        "required" => IndexEmbeddingMode::Required,
        "optional" => IndexEmbeddingMode::Optional,
        _ => IndexEmbeddingMode::Skip,
    };
    let reason = status.reason.and_then(|reason| match reason {
        "missing_api_key" => Some(IndexEmbeddingUnavailable::MissingApiKey),
        "embedding_query_failed" => Some(IndexEmbeddingUnavailable::EmbeddingQueryFailed),
        "model_not_installed" => Some(IndexEmbeddingUnavailable::ModelNotInstalled),
        "indexing" => Some(IndexEmbeddingUnavailable::Indexing),
        other => {
            tracing::warn!(reason = other, "unknown embedding status reason");
            None
        }
    });
    IndexEmbeddingStatus {
        mode_used,
        ready: status.ready,
        reason,
        detail: status.detail,
        progress: status.progress.map(|progress| IndexEmbeddingProgress {
            embedded_chunks: progress.embedded_chunks as i64,
            total_chunks: progress.total_chunks as i64,
        }),
    }
}
