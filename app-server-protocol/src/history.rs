//! `history/search` and `history/open`: conversation history search for IDE clients, with the
//! payloads of the MCP tools `search` and `open` (fields in camelCase). See `docs/history.md`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `history/search`. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct HistorySearchParams {
    /// Words to look for (trimmed; empty is an error).
    pub query: String,
    /// How many hits; clamped to 1..`max_results` of `[history]`.
    #[serde(default)]
    pub limit: Option<i64>,
    /// Hits scoring below this are dropped.
    #[serde(default)]
    pub min_score: Option<f64>,
    /// How many distinct query terms a hit must contain; clamped to 1..number of terms.
    #[serde(default)]
    pub min_should_match: Option<i64>,
    /// Restrict to one session (thread id): letters, digits and `._:@/-`, 1 to 256 characters.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Include tool calls and outputs (default from `[history] include_tool_events`).
    #[serde(default)]
    pub include_tool_events: Option<bool>,
    /// Leave out the history tools' own calls (default true).
    #[serde(default)]
    pub exclude_codex_mcp: Option<bool>,
}

/// One hit of `history/search`. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistorySearchHit {
    /// 1-based rank.
    pub rank: i64,
    /// The event's id; pass it to `history/open`.
    pub event_uid: String,
    /// The session (thread) id.
    pub session_id: String,
    /// Position of the event in its session, from 0.
    pub event_order: i64,
    /// Turn number in the session, from 1.
    pub turn_seq: i64,
    /// Turn id.
    pub turn_id: String,
    /// When the event was recorded (RFC 3339, UTC).
    pub timestamp: String,
    /// `user_message`, `agent_message`, `reasoning`, `command`, `file_change`, `tool_call`,
    /// `tool_output` or `error`.
    pub class: String,
    /// BM25 score (rounded to 4 decimals).
    pub score: f64,
    /// Distinct query terms the event contains.
    pub matched_terms: i64,
    /// Text around the first matching term, on one line.
    pub snippet: String,
}

/// Result of `history/search`. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistorySearchResponse {
    /// Id of this query in the query and hit logs.
    pub query_id: String,
    /// The trimmed query.
    pub query: String,
    /// The distinct terms searched.
    pub terms: Vec<String>,
    /// Distinct terms dropped by the term cap.
    pub dropped_terms: i64,
    /// The effective limit.
    pub limit: i64,
    /// The effective minimum of matched terms.
    pub min_should_match: i64,
    /// `embedded` or `clickhouse`.
    pub backend: String,
    /// Events in the index that belong to the caller (only those are searched).
    pub corpus_events: i64,
    /// Milliseconds from tokenization to the assembled result.
    pub elapsed_ms: f64,
    /// Hits, best first.
    pub hits: Vec<HistorySearchHit>,
}

/// Parameters of `history/open`. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct HistoryOpenParams {
    /// The event to open (validated like `sessionId`).
    pub event_uid: String,
    /// Events of context before it (default and bound from `[history]`).
    #[serde(default)]
    pub before: Option<i64>,
    /// Events of context after it.
    #[serde(default)]
    pub after: Option<i64>,
}

/// One event of a `history/open` window. @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryWindowEvent {
    /// `before`, `target` or `after`.
    pub position: String,
    /// The event's id.
    pub event_uid: String,
    /// Position in the session.
    pub event_order: i64,
    /// Turn number.
    pub turn_seq: i64,
    /// Turn id.
    pub turn_id: String,
    /// When the event was recorded (RFC 3339, UTC).
    pub timestamp: String,
    /// The event class (as in [`HistorySearchHit::class`]).
    pub class: String,
    /// The searchable text.
    pub text: String,
    /// The rollout line's payload as recorded.
    pub payload: serde_json::Value,
    /// Token usage in effect when the event was recorded; `null` before the first usage.
    pub token_usage: serde_json::Value,
}

/// Result of `history/open`. A missing event is a result with `found: false`, not an error.
/// @experimental
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryOpenResponse {
    /// Whether the event exists.
    pub found: bool,
    /// The requested event id.
    pub event_uid: String,
    /// The target's session; `null` when not found.
    pub session_id: Option<String>,
    /// The target's turn number; `null` when not found.
    pub turn_seq: Option<i64>,
    /// The target's position; `null` when not found.
    pub event_order: Option<i64>,
    /// The effective `before`; `null` when not found.
    pub before: Option<i64>,
    /// The effective `after`; `null` when not found.
    pub after: Option<i64>,
    /// The window in conversation order (empty when not found).
    pub events: Vec<HistoryWindowEvent>,
}
