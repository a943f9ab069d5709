//! Params and results of the experimental `thread/search` (the caller's threads whose
//! conversations match a search term, answered from the history index) and `memory/status`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::policy::SortDirection;
use crate::thread::Thread;
use crate::thread_requests::ThreadSourceKind;

/// Parameters of `thread/search`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadSearchParams {
    /// Words to look for in the threads' messages, reasoning, commands and file changes (BM25
    /// over the history index); empty is an error.
    pub search_term: String,
    /// Accepted; threads are found whether archived or not.
    #[serde(default)]
    pub archived: Option<bool>,
    /// Accepted; every thread found belongs to the caller.
    #[serde(default)]
    pub current_account_only: Option<bool>,
    /// The `nextCursor` of an earlier page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Accepted and ignored: Tandem has no attached threads.
    #[serde(default)]
    pub include_attached_threads: Option<bool>,
    /// Page size (at least 1; default 20).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Order of a `sortKey` (default `desc`); relevance is always best first.
    #[serde(default)]
    pub sort_direction: Option<SortDirection>,
    /// Order by this time instead of by relevance (the best match of each thread).
    #[serde(default)]
    pub sort_key: Option<ThreadSearchSortKey>,
    /// Accepted and ignored.
    #[serde(default)]
    pub source_kinds: Option<Vec<ThreadSourceKind>>,
}

/// What `thread/search` orders by when not by relevance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ThreadSearchSortKey {
    /// When the thread was created.
    CreatedAt,
    /// When the thread was last updated.
    UpdatedAt,
    /// When the thread last had a turn (its update time where unknown).
    RecencyAt,
}

/// Result of `thread/search`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSearchResponse {
    /// One page of matching threads.
    pub data: Vec<ThreadSearchResult>,
    /// Cursor of the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
    /// Always `null`: pages only go forwards.
    #[serde(default)]
    pub backwards_cursor: Option<String>,
}

/// One thread found by `thread/search`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSearchResult {
    /// The text around the thread's best match.
    pub snippet: String,
    /// The thread, without its turns.
    pub thread: Thread,
}

/// Parameters of `memory/status`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct MemoryStatusParams {
    /// Accepted; Tandem consolidates no memories.
    #[serde(default)]
    pub min_consolidated_threads: Option<u32>,
}

/// Result of `memory/status`: Tandem keeps no memories across threads (past conversations
/// are searched with `thread/search` and `history/search` instead), so nothing is ever ready.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct MemoryStatusResponse {
    /// Threads consolidated into memories: always 0.
    pub v2_consolidated_threads: u32,
    /// Whether memories are ready: always `false`.
    pub v2_ready: bool,
}
