//! `history/search`, `history/open` and `thread/search`: the MCP tools' query side, on a blocking thread, for
//! the connection's principal (only the entries of its threads), mapped to the protocol's
//! types. A bad value is `-32600` with the validation message; a
//! backend failure is `-32603`.

use std::sync::Arc;

use app_server_protocol::history::{
    HistoryOpenParams, HistoryOpenResponse, HistorySearchHit, HistorySearchParams,
    HistorySearchResponse, HistoryWindowEvent,
};
use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use app_server_protocol::policy::SortDirection;
use app_server_protocol::thread_requests::ThreadReadParams;
use app_server_protocol::thread_search::{
    ThreadSearchParams, ThreadSearchResponse, ThreadSearchResult, ThreadSearchSortKey,
};
use tandem_history::service::{
    OpenArgs, OpenPayload, RequestError, SearchArgs, SearchPayload, Verbosity,
};

use crate::history::History;
use crate::processor::Processor;
use crate::rpc_error::{internal_error, invalid_request};

impl Processor {
    fn history_service(&self) -> Result<Arc<History>, JsonRpcErrorBody> {
        self.history
            .clone()
            .ok_or_else(|| internal_error("history search is not available in this server"))
    }

    /// `history/search`.
    pub(super) async fn history_search(
        &self,
        params: HistorySearchParams,
    ) -> Result<HistorySearchResponse, JsonRpcErrorBody> {
        let service = self.history_service()?;
        let args = SearchArgs {
            query: params.query,
            limit: params.limit,
            min_score: params.min_score,
            min_should_match: params.min_should_match,
            session_id: params.session_id,
            include_tool_events: params.include_tool_events,
            exclude_codex_mcp: params.exclude_codex_mcp,
            verbosity: Verbosity::Full,
        };
        let owner = self.engine.principal().name().to_owned();
        let search = move || {
            service.wait_for_after_turn_ingests();
            service.service().search(&args, &owner)
        };
        match tokio::task::spawn_blocking(search).await {
            Ok(Ok(payload)) => Ok(search_response(payload)),
            Ok(Err(error)) => Err(request_error(&error)),
            Err(error) => Err(internal_error(format!("history search failed: {error}"))),
        }
    }

    /// `history/open`.
    pub(super) async fn history_open(
        &self,
        params: HistoryOpenParams,
    ) -> Result<HistoryOpenResponse, JsonRpcErrorBody> {
        let service = self.history_service()?;
        let args = OpenArgs {
            event_uid: params.event_uid,
            before: params.before,
            after: params.after,
            verbosity: Verbosity::Full,
        };
        let owner = self.engine.principal().name().to_owned();
        match tokio::task::spawn_blocking(move || service.service().open(&args, &owner)).await {
            Ok(Ok(payload)) => Ok(open_response(payload)),
            Ok(Err(error)) => Err(request_error(&error)),
            Err(error) => Err(internal_error(format!("history open failed: {error}"))),
        }
    }
}

fn request_error(error: &RequestError) -> JsonRpcErrorBody {
    match error {
        RequestError::Invalid(message) => invalid_request(message),
        RequestError::Backend(error) => internal_error(error.to_string()),
    }
}

fn search_response(payload: SearchPayload) -> HistorySearchResponse {
    HistorySearchResponse {
        query_id: payload.query_id,
        query: payload.query,
        terms: payload.terms,
        dropped_terms: payload.dropped_terms as i64,
        limit: payload.limit,
        min_should_match: payload.min_should_match,
        backend: payload.backend.to_string(),
        corpus_events: payload.corpus_events,
        elapsed_ms: payload.elapsed_ms,
        hits: payload
            .hits
            .into_iter()
            .map(|hit| HistorySearchHit {
                rank: hit.rank,
                event_uid: hit.event_uid,
                session_id: hit.session_id,
                event_order: hit.event_order,
                turn_seq: hit.turn_seq,
                turn_id: hit.turn_id,
                timestamp: hit.timestamp,
                class: hit.class.as_str().to_string(),
                score: hit.score,
                matched_terms: hit.matched_terms,
                snippet: hit.snippet,
            })
            .collect(),
    }
}

fn open_response(payload: OpenPayload) -> HistoryOpenResponse {
    HistoryOpenResponse {
        found: payload.found,
        event_uid: payload.event_uid,
        session_id: payload.session_id,
        turn_seq: payload.turn_seq,
        event_order: payload.event_order,
        before: payload.before,
        after: payload.after,
        events: payload
            .events
            .into_iter()
            .map(|event| HistoryWindowEvent {
                position: event.position.to_string(),
                event_uid: event.event_uid,
                event_order: event.event_order,
                turn_seq: event.turn_seq,
                turn_id: event.turn_id,
                timestamp: event.timestamp,
                class: event.class.as_str().to_string(),
                text: event.text,
                payload: event.payload,
                token_usage: event.token_usage,
            })
            .collect(),
    }
}

/// How many history hits `thread/search` ranks threads from (the history's own `max_results`
/// bounds it further).
const THREAD_SEARCH_HITS: i64 = 1000;

/// `thread/search`'s default page size.
const THREAD_SEARCH_PAGE: usize = 20;

impl Processor {
    /// `thread/search`: the caller's threads with a history hit, each with its best hit's
    /// snippet, by relevance or by a time.
    pub(super) async fn thread_search(
        &self,
        params: ThreadSearchParams,
    ) -> Result<ThreadSearchResponse, JsonRpcErrorBody> {
        let service = self.history_service()?;
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|_| invalid_request(format!("invalid cursor: {cursor}")))?,
        };
        let args = SearchArgs {
            query: params.search_term.clone(),
            limit: Some(THREAD_SEARCH_HITS),
            min_score: None,
            min_should_match: None,
            session_id: None,
            include_tool_events: Some(false),
            exclude_codex_mcp: None,
            verbosity: Verbosity::Full,
        };
        let owner = self.engine.principal().name().to_owned();
        let search = move || {
            service.wait_for_after_turn_ingests();
            service.service().search(&args, &owner)
        };
        let payload = match tokio::task::spawn_blocking(search).await {
            Ok(Ok(payload)) => payload,
            Ok(Err(error)) => return Err(request_error(&error)),
            Err(error) => return Err(internal_error(format!("thread search failed: {error}"))),
        };
        let limit = params
            .limit
            .map_or(THREAD_SEARCH_PAGE, |limit| limit.max(1) as usize);
        // In relevance order the threads past this page, and one more to know whether a page
        // follows, need not be read; a time order needs every thread found.
        let needed = match params.sort_key {
            None => offset.saturating_add(limit).saturating_add(1),
            Some(_) => usize::MAX,
        };
        // The best hit of each thread, in rank order.
        let mut seen = std::collections::HashSet::new();
        let mut found = Vec::new();
        for hit in payload.hits {
            if found.len() >= needed {
                break;
            }
            if !seen.insert(hit.session_id.clone()) {
                continue;
            }
            let read = ThreadReadParams {
                thread_id: hit.session_id,
                include_turns: Some(false),
            };
            // The owner check of `thread/read` applies; a thread gone since it was indexed is
            // left out.
            if let Ok(thread) = self.engine.read_thread(read).await {
                found.push(ThreadSearchResult {
                    snippet: hit.snippet,
                    thread,
                });
            }
        }
        if let Some(key) = params.sort_key {
            let time = |result: &ThreadSearchResult| match key {
                ThreadSearchSortKey::CreatedAt => result.thread.created_at,
                ThreadSearchSortKey::UpdatedAt => result.thread.updated_at,
                ThreadSearchSortKey::RecencyAt => {
                    result.thread.recency_at.unwrap_or(result.thread.updated_at)
                }
            };
            found.sort_by_key(|result| std::cmp::Reverse(time(result)));
            if params.sort_direction == Some(SortDirection::Asc) {
                found.reverse();
            }
        }
        let start = offset.min(found.len());
        let end = start.saturating_add(limit).min(found.len());
        let next_cursor = (end < found.len()).then(|| end.to_string());
        Ok(ThreadSearchResponse {
            data: found.drain(start..end).collect(),
            next_cursor,
            backwards_cursor: None,
        })
    }
}
