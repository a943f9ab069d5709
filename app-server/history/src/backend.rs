//! The storage boundary: what ingestion writes and what the query side reads, as typed values.
//! [`crate::sqlite::EmbeddedBackend`] and [`crate::clickhouse::ClickHouseBackend`] implement it.

use std::collections::HashMap;

use crate::event::{Event, EventClass};
use crate::rollout::Cursor;

/// A failure of a backend call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// The embedded SQLite index failed.
    #[error("history index: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The ClickHouse server failed or could not be reached.
    #[error("clickhouse: {0}")]
    ClickHouse(String),
    /// A file could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
}

/// Where ingestion stands in one rollout file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileState {
    /// Inode when last read.
    pub inode: u64,
    /// Byte offset after the last complete line consumed.
    pub offset: u64,
    /// Hash of the file's first line (detects a rewrite that kept inode and grew).
    pub fingerprint: String,
    /// Parser state after `offset`.
    pub cursor: Cursor,
    /// Corrupt lines skipped so far.
    pub corrupt_lines: i64,
}

/// One file's part of a [`Batch`].
#[derive(Debug)]
pub struct FileUpdate {
    /// The rollout file.
    pub path: String,
    /// Remove the file's earlier events first (truncated or rewritten file).
    pub reset: bool,
    /// The file's state after the batch's events.
    pub state: FileState,
}

/// One atomic unit of ingestion: new events of one or more files plus their new states.
/// Resets apply before the events are written.
#[derive(Debug, Default)]
pub struct Batch {
    /// The files whose state the batch advances.
    pub files: Vec<FileUpdate>,
    /// New events.
    pub events: Vec<Event>,
}

/// Corpus statistics for one query. The BM25 statistics are over every indexed event, whoever
/// owns it, so that a score does not depend on who asks; `owner_docs` is the asker's share.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusStats {
    /// Number of indexed events.
    pub docs: i64,
    /// Number of indexed events of the asking principal.
    pub owner_docs: i64,
    /// Average length in terms.
    pub avg_len: f64,
    /// Document frequency of each query term (same order).
    pub df: Vec<i64>,
}

/// A bounded search: everything the backend needs to score in one query.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchPlan {
    /// Distinct query terms.
    pub terms: Vec<String>,
    /// IDF per term (same order).
    pub idf: Vec<f64>,
    /// Document frequency per term (same order).
    pub df: Vec<i64>,
    /// BM25 `k1`.
    pub k1: f64,
    /// BM25 `b`.
    pub b: f64,
    /// Average document length.
    pub avg_len: f64,
    /// How many distinct terms a hit must contain.
    pub min_should_match: i64,
    /// Drop hits scoring below.
    pub min_score: Option<f64>,
    /// Postings `kind` values admitted.
    pub kinds: Vec<i64>,
    /// Restrict to one session (already validated).
    pub session_id: Option<String>,
    /// Only the events of this principal: the backend filters while it ranks, so a hit of
    /// another principal never takes a place in the top k.
    pub owner: String,
    /// How many hits.
    pub limit: i64,
}

/// One scored document.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredDoc {
    /// Document id.
    pub doc: i64,
    /// BM25 score.
    pub score: f64,
    /// How many distinct query terms it contains.
    pub matched: i64,
}

/// What a search hit shows of its event: everything but the payload, the token usage and the
/// source path (only `open` returns those).
#[derive(Clone, Debug, PartialEq)]
pub struct HitEvent {
    /// Document id (hash of `event_uid`).
    pub doc: i64,
    /// Stable event id.
    pub event_uid: String,
    /// Session (thread) id.
    pub session_id: String,
    /// Position in the session.
    pub event_order: i64,
    /// Turn number.
    pub turn_seq: i64,
    /// Turn id.
    pub turn_id: String,
    /// Unix milliseconds.
    pub timestamp_ms: i64,
    /// Event class.
    pub class: EventClass,
    /// The searchable text (snippets come from it).
    pub text: String,
}

/// One row of the query log, with its hits for the hit log.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryLog {
    /// Query id.
    pub query_id: String,
    /// Unix milliseconds.
    pub at_ms: i64,
    /// The query as given (trimmed).
    pub query: String,
    /// Terms used.
    pub terms: Vec<String>,
    /// Elapsed microseconds.
    pub elapsed_us: i64,
    /// `(rank, event_uid, score)` of each hit.
    pub hits: Vec<(i64, String, f64)>,
}

/// A history store.
pub trait HistoryBackend: Send + Sync {
    /// `embedded` or `clickhouse`.
    fn name(&self) -> &'static str;
    /// Checks that the store answers.
    fn ping(&self) -> Result<(), HistoryError>;
    /// Ingestion state of every known file, by path.
    fn file_states(&self) -> Result<HashMap<String, FileState>, HistoryError>;
    /// Ingestion state of one file.
    fn file_state(&self, path: &str) -> Result<Option<FileState>, HistoryError> {
        Ok(self.file_states()?.remove(path))
    }
    /// Writes one batch atomically (as far as the backend allows).
    fn commit(&self, batch: &Batch) -> Result<(), HistoryError>;
    /// Removes every event of session (thread) `session_id`, with its postings and its share
    /// of the corpus statistics, and the ingestion state of the files they came from (a
    /// deleted thread). Returns how many events went.
    fn delete_session(&self, session_id: &str) -> Result<u64, HistoryError>;
    /// Corpus statistics for `terms`, with `owner`'s number of events.
    fn corpus_stats(&self, terms: &[String], owner: &str) -> Result<CorpusStats, HistoryError>;
    /// Scores and ranks (score descending, then doc ascending), at most `plan.limit`, among
    /// the events of `plan.owner`.
    fn search(&self, plan: &SearchPlan) -> Result<Vec<ScoredDoc>, HistoryError>;
    /// The hit rows of documents `docs` (any order; at most `max_results` of them).
    fn hit_events(&self, docs: &[i64]) -> Result<Vec<HitEvent>, HistoryError>;
    /// One event of `owner` by uid (`None` for another principal's).
    fn event_by_uid(&self, event_uid: &str, owner: &str) -> Result<Option<Event>, HistoryError>;
    /// Up to `before` events before and `after` events after `event_order` in `session_id`,
    /// and the event itself, in conversation order; only `owner`'s.
    fn window(
        &self,
        session_id: &str,
        owner: &str,
        event_order: i64,
        before: i64,
        after: i64,
    ) -> Result<Vec<Event>, HistoryError>;
    /// Writes the query and hit logs of several searches (one batch of the telemetry queue,
    /// see `service::Telemetry`).
    fn log_queries(&self, logs: &[QueryLog]) -> Result<(), HistoryError>;
    /// Number of indexed events.
    fn event_count(&self) -> Result<i64, HistoryError>;
    /// Work counters since the backend was opened (name, value), for the benchmark.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// IDF with the `+1` inside the log (never negative); both backends use it.
pub fn idf(docs: i64, df: i64) -> f64 {
    let docs = docs as f64;
    let df = df as f64;
    (1.0 + (docs - df + 0.5) / (df + 0.5)).ln()
}
