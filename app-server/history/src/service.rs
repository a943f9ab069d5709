//! The query side of `search` and `open`: validate the arguments, plan a bounded query, score
//! it on the backend, and build the payload and its `prose` or `full` envelope.

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::backend::{HistoryBackend, HistoryError, QueryLog, SearchPlan, idf};
use crate::clickhouse::ClickHouseBackend;
use crate::config::{BackendKind, HistoryConfig};
use crate::event::{Event, EventClass, HISTORY_TOOL_FLAG, format_timestamp};
use crate::ingest::{IngestReport, ingest, ingest_one};
use crate::sqlite::EmbeddedBackend;
use crate::telemetry::{QUEUE_CAPACITY, Telemetry};
use crate::tokenize::query_terms;

/// Name of the search tool.
pub const SEARCH_TOOL: &str = "search";
/// Name of the open tool.
pub const OPEN_TOOL: &str = "open";

/// How a result is rendered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verbosity {
    /// Concise text for a model (default).
    #[default]
    Prose,
    /// Pretty JSON plus `structuredContent`.
    Full,
}

/// Arguments of `search`; the field comments are the descriptions MCP clients are shown.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for; empty is an error.
    pub query: String,
    /// How many hits (clamped to 1..max_results).
    #[serde(default)]
    pub limit: Option<i64>,
    /// Drop hits scoring below this.
    #[serde(default)]
    pub min_score: Option<f64>,
    /// How many query terms a hit must contain (clamped to 1..number of terms).
    #[serde(default)]
    pub min_should_match: Option<i64>,
    /// Restrict to one session (thread id); letters, digits and . _ : @ / -, at most 256.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Include tool calls and outputs.
    #[serde(default)]
    pub include_tool_events: Option<bool>,
    /// Leave out the history tools' own calls (default true).
    #[serde(default)]
    pub exclude_codex_mcp: Option<bool>,
    /// `prose` (default): concise text; `full`: JSON with structuredContent.
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = ["prose", "full"]))]
    pub verbosity: Verbosity,
}

/// Arguments of `open`; the field comments are the descriptions MCP clients are shown.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenArgs {
    /// The event_uid of a search hit.
    pub event_uid: String,
    /// Events of context before (bounded by max_context).
    #[serde(default)]
    pub before: Option<i64>,
    /// Events of context after (bounded by max_context).
    #[serde(default)]
    pub after: Option<i64>,
    /// `prose` (default): concise text; `full`: JSON with structuredContent.
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = ["prose", "full"]))]
    pub verbosity: Verbosity,
}

/// One search hit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchHit {
    /// 1-based rank.
    pub rank: i64,
    /// Pass to `open`.
    pub event_uid: String,
    /// Session (thread) id.
    pub session_id: String,
    /// Position in the session.
    pub event_order: i64,
    /// Turn number.
    pub turn_seq: i64,
    /// Turn id.
    pub turn_id: String,
    /// RFC 3339 time.
    pub timestamp: String,
    /// Event class.
    pub class: EventClass,
    /// BM25 score.
    pub score: f64,
    /// Distinct query terms matched.
    pub matched_terms: i64,
    /// Text around the first match.
    pub snippet: String,
}

/// The `search` payload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchPayload {
    /// Id of this call (query and hit logs).
    pub query_id: String,
    /// The trimmed query.
    pub query: String,
    /// Terms searched.
    pub terms: Vec<String>,
    /// Distinct terms dropped by `max_query_terms`.
    pub dropped_terms: usize,
    /// Effective limit.
    pub limit: i64,
    /// Effective `min_should_match`.
    pub min_should_match: i64,
    /// Backend name.
    pub backend: &'static str,
    /// Indexed events of the caller.
    pub corpus_events: i64,
    /// From tokenization to the assembled payload.
    pub elapsed_ms: f64,
    /// Hits by score.
    pub hits: Vec<SearchHit>,
}

/// One event of an `open` window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowEvent {
    /// `before`, `target` or `after`.
    pub position: &'static str,
    /// Event uid.
    pub event_uid: String,
    /// Position in the session.
    pub event_order: i64,
    /// Turn number.
    pub turn_seq: i64,
    /// Turn id.
    pub turn_id: String,
    /// RFC 3339 time.
    pub timestamp: String,
    /// Event class.
    pub class: EventClass,
    /// Searchable text.
    pub text: String,
    /// The rollout line's payload.
    pub payload: Value,
    /// Token usage in effect (null when none).
    pub token_usage: Value,
}

/// The `open` payload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenPayload {
    /// Whether the event exists.
    pub found: bool,
    /// The requested uid.
    pub event_uid: String,
    /// Session of the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Turn of the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_seq: Option<i64>,
    /// Order of the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_order: Option<i64>,
    /// Effective `before`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<i64>,
    /// Effective `after`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<i64>,
    /// The window in conversation order.
    pub events: Vec<WindowEvent>,
}

/// A request that cannot be answered: a bad value or a backend failure. Becomes an `isError`
/// result.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// An argument failed validation.
    #[error("{0}")]
    Invalid(String),
    /// The backend failed.
    #[error(transparent)]
    Backend(#[from] HistoryError),
}

/// The history subsystem as served: config plus a backend. ClickHouse is connected (and
/// pinged) when the service is created; the embedded index is opened on first use, so a
/// server answers `initialize` before touching it.
pub struct HistoryService {
    config: HistoryConfig,
    /// The query-log queue; started with the backend. Dropped (and so flushed) first.
    telemetry: OnceLock<Telemetry>,
    backend: OnceLock<Arc<dyn HistoryBackend>>,
    /// Serializes the first open of the embedded index.
    opening: Mutex<()>,
}

impl std::fmt::Debug for HistoryService {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("HistoryService")
            .field("backend", &self.config.backend)
            .finish_non_exhaustive()
    }
}

impl HistoryService {
    /// Creates the service for a validated config. ClickHouse is connected and pinged here
    /// (fail fast at startup); the embedded index is opened by the first call that needs it.
    pub fn connect(config: HistoryConfig) -> Result<HistoryService, HistoryError> {
        let service = HistoryService {
            config,
            telemetry: OnceLock::new(),
            backend: OnceLock::new(),
            opening: Mutex::new(()),
        };
        if service.config.backend == BackendKind::ClickHouse {
            service.backend()?;
        }
        Ok(service)
    }

    /// The configuration.
    pub fn config(&self) -> &HistoryConfig {
        &self.config
    }

    /// The backend, opened (and pinged) on first use. A failed open is retried by the next
    /// call.
    pub fn backend(&self) -> Result<&dyn HistoryBackend, HistoryError> {
        if let Some(backend) = self.backend.get() {
            return Ok(backend.as_ref());
        }
        let _opening = self
            .opening
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.backend.get().is_none() {
            let backend: Arc<dyn HistoryBackend> = match self.config.backend {
                BackendKind::Embedded => Arc::new(EmbeddedBackend::open(&self.config.index_path)?),
                BackendKind::ClickHouse => {
                    Arc::new(ClickHouseBackend::connect(&self.config.clickhouse)?)
                }
            };
            backend.ping()?;
            let writer = Arc::clone(&backend);
            let _ = self
                .telemetry
                .set(Telemetry::start(QUEUE_CAPACITY, move |logs| {
                    writer.log_queries(logs)
                }));
            let _ = self.backend.set(backend);
        }
        match self.backend.get() {
            Some(backend) => Ok(backend.as_ref()),
            None => Err(HistoryError::Io {
                path: self.config.index_path.display().to_string(),
                message: "the history backend could not be opened".to_string(),
            }),
        }
    }

    /// Ingests every configured source (blocking).
    pub fn ingest(&self) -> Result<IngestReport, HistoryError> {
        ingest(self.backend()?, &self.config.sources)
    }

    /// Ingests one rollout file (blocking).
    pub fn ingest_file(&self, path: &Path) -> Result<IngestReport, HistoryError> {
        ingest_one(self.backend()?, path)
    }

    /// Removes every event of session (thread) `session_id` (blocking); returns how many went.
    /// An embedded index that was never created holds nothing, and is not created for this.
    pub fn delete_session(&self, session_id: &str) -> Result<u64, HistoryError> {
        if self.backend.get().is_none()
            && self.config.backend == BackendKind::Embedded
            && !self.config.index_path.exists()
        {
            return Ok(0);
        }
        self.backend()?.delete_session(session_id)
    }

    /// Work counters of the backend and the telemetry queue (name, value), for the benchmark.
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut counters = self
            .backend
            .get()
            .map(|backend| backend.counters())
            .unwrap_or_default();
        if let Some(telemetry) = self.telemetry.get() {
            counters.extend(telemetry.counters());
        }
        counters
    }

    /// Writes the query logs queued so far and stops the telemetry thread; later searches'
    /// logs are dropped. Dropping the service does the same.
    pub fn close_telemetry(&self) {
        if let Some(telemetry) = self.telemetry.get() {
            telemetry.close();
        }
    }

    /// `search` (blocking) for the principal `owner`: only the events of its threads are
    /// ranked.
    pub fn search(&self, args: &SearchArgs, owner: &str) -> Result<SearchPayload, RequestError> {
        let started = Instant::now();
        let query = args.query.trim();
        if query.is_empty() {
            return Err(RequestError::Invalid("query must not be empty".to_string()));
        }
        if let Some(session_id) = &args.session_id {
            validate_id("session_id", session_id)?;
        }
        if let Some(min_score) = args.min_score
            && !min_score.is_finite()
        {
            return Err(RequestError::Invalid(
                "min_score must be a finite number".to_string(),
            ));
        }
        let (terms, dropped_terms) = query_terms(query, self.config.max_query_terms);
        let limit = args
            .limit
            .unwrap_or(self.config.default_limit)
            .clamp(1, self.config.max_results);
        let min_should_match = args
            .min_should_match
            .unwrap_or(1)
            .clamp(1, (terms.len() as i64).max(1));
        let include_tools = args
            .include_tool_events
            .unwrap_or(self.config.include_tool_events);
        let exclude_history = args.exclude_codex_mcp.unwrap_or(true);
        let mut kinds = Vec::new();
        for class in EventClass::ALL {
            if class.is_tool_event() && !include_tools {
                continue;
            }
            kinds.push(class.code());
            if !exclude_history {
                kinds.push(class.code() + HISTORY_TOOL_FLAG);
            }
        }
        let backend = self.backend()?;
        let stats = backend.corpus_stats(&terms, owner)?;
        let plan = SearchPlan {
            idf: stats.df.iter().map(|df| idf(stats.docs, *df)).collect(),
            df: stats.df.clone(),
            terms: terms.clone(),
            k1: self.config.k1,
            b: self.config.b,
            avg_len: stats.avg_len,
            min_should_match,
            min_score: args.min_score,
            kinds,
            session_id: args.session_id.clone(),
            owner: owner.to_string(),
            limit,
        };
        let scored = if terms.is_empty() {
            Vec::new()
        } else {
            backend.search(&plan)?
        };
        let docs: Vec<i64> = scored.iter().map(|hit| hit.doc).collect();
        let events = backend.hit_events(&docs)?;
        let mut hits = Vec::with_capacity(scored.len());
        for scored_doc in &scored {
            let Some(event) = events.iter().find(|event| event.doc == scored_doc.doc) else {
                continue;
            };
            hits.push(SearchHit {
                rank: hits.len() as i64 + 1,
                event_uid: event.event_uid.clone(),
                session_id: event.session_id.clone(),
                event_order: event.event_order,
                turn_seq: event.turn_seq,
                turn_id: event.turn_id.clone(),
                timestamp: format_timestamp(event.timestamp_ms),
                class: event.class,
                score: (scored_doc.score * 1e4).round() / 1e4,
                matched_terms: scored_doc.matched,
                snippet: snippet(&event.text, &terms, self.config.snippet_chars),
            });
        }
        let payload = SearchPayload {
            query_id: uuid::Uuid::now_v7().to_string(),
            query: query.to_string(),
            terms,
            dropped_terms,
            limit,
            min_should_match,
            backend: backend.name(),
            corpus_events: stats.owner_docs,
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
            hits,
        };
        let log = QueryLog {
            query_id: payload.query_id.clone(),
            at_ms: now_ms(),
            query: payload.query.clone(),
            terms: payload.terms.clone(),
            elapsed_us: started.elapsed().as_micros() as i64,
            hits: payload
                .hits
                .iter()
                .map(|hit| (hit.rank, hit.event_uid.clone(), hit.score))
                .collect(),
        };
        // Best effort and off the answer path: queued for the telemetry thread.
        if let Some(telemetry) = self.telemetry.get() {
            telemetry.record(log);
        }
        Ok(payload)
    }

    /// `open` (blocking) for the principal `owner`: another principal's event is not found.
    pub fn open(&self, args: &OpenArgs, owner: &str) -> Result<OpenPayload, RequestError> {
        validate_id("event_uid", &args.event_uid)?;
        let before = args
            .before
            .unwrap_or(self.config.default_before)
            .clamp(0, self.config.max_context);
        let after = args
            .after
            .unwrap_or(self.config.default_after)
            .clamp(0, self.config.max_context);
        let backend = self.backend()?;
        let Some(target) = backend.event_by_uid(&args.event_uid, owner)? else {
            return Ok(OpenPayload {
                found: false,
                event_uid: args.event_uid.clone(),
                session_id: None,
                turn_seq: None,
                event_order: None,
                before: None,
                after: None,
                events: Vec::new(),
            });
        };
        let window =
            backend.window(&target.session_id, owner, target.event_order, before, after)?;
        let events = window
            .into_iter()
            .map(|event| {
                let position = match event.event_order.cmp(&target.event_order) {
                    std::cmp::Ordering::Less => "before",
                    std::cmp::Ordering::Equal => "target",
                    std::cmp::Ordering::Greater => "after",
                };
                window_event(event, position)
            })
            .collect();
        Ok(OpenPayload {
            found: true,
            event_uid: target.event_uid,
            session_id: Some(target.session_id),
            turn_seq: Some(target.turn_seq),
            event_order: Some(target.event_order),
            before: Some(before),
            after: Some(after),
            events,
        })
    }

    /// Runs the tool `name` for the principal `owner` and returns its `CallToolResult`; `Err`
    /// is an undecodable argument object (the caller answers `-32602`). `None` for a tool that
    /// is not ours.
    pub fn call_tool(
        &self,
        name: &str,
        arguments: Option<&Value>,
        owner: &str,
    ) -> Option<Result<Value, String>> {
        let arguments = arguments.cloned().unwrap_or_else(|| json!({}));
        match name {
            SEARCH_TOOL => Some(
                serde_json::from_value::<SearchArgs>(arguments)
                    .map_err(|error| format!("invalid arguments for `search`: {error}"))
                    .map(|args| match self.search(&args, owner) {
                        Ok(payload) => {
                            envelope(args.verbosity, &payload, || search_prose(&payload))
                        }
                        Err(error) => error_result(&error.to_string()),
                    }),
            ),
            OPEN_TOOL => Some(
                serde_json::from_value::<OpenArgs>(arguments)
                    .map_err(|error| format!("invalid arguments for `open`: {error}"))
                    .map(|args| match self.open(&args, owner) {
                        Ok(payload) => envelope(args.verbosity, &payload, || open_prose(&payload)),
                        Err(error) => error_result(&error.to_string()),
                    }),
            ),
            _ => None,
        }
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or(0)
}

/// Checks `value` against `^[A-Za-z0-9._:@/-]{1,256}$`.
pub fn validate_id(field: &str, value: &str) -> Result<(), RequestError> {
    if value.is_empty() || value.len() > 256 {
        return Err(RequestError::Invalid(format!(
            "invalid {field}: expected 1 to 256 characters, got {}",
            value.chars().count()
        )));
    }
    if let Some(bad) = value
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "._:@/-".contains(*c)))
    {
        return Err(RequestError::Invalid(format!(
            "invalid {field}: unsupported character {bad:?} (allowed: letters, digits and . _ : @ / -)"
        )));
    }
    Ok(())
}

fn window_event(event: Event, position: &'static str) -> WindowEvent {
    WindowEvent {
        position,
        event_uid: event.event_uid,
        event_order: event.event_order,
        turn_seq: event.turn_seq,
        turn_id: event.turn_id,
        timestamp: format_timestamp(event.timestamp_ms),
        class: event.class,
        text: event.text,
        payload: serde_json::from_str(&event.payload).unwrap_or(Value::Null),
        token_usage: serde_json::from_str(&event.token_usage).unwrap_or(Value::Null),
    }
}

/// Text around the first occurrence of a query term, on one line.
pub fn snippet(text: &str, terms: &[String], max_chars: usize) -> String {
    let lower = text.to_lowercase();
    let start = if lower.len() == text.len() {
        terms
            .iter()
            .filter_map(|term| lower.find(term.as_str()))
            .min()
            .unwrap_or(0)
    } else {
        0
    };
    let chars_before = text[..start].chars().count();
    let skip = chars_before.saturating_sub(max_chars / 4);
    let body: String = text.chars().skip(skip).take(max_chars).collect();
    let mut line = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if skip > 0 {
        line.insert(0, '…');
    }
    if text.chars().count() > skip + max_chars {
        line.push('…');
    }
    line
}

/// A successful result in the requested verbosity.
pub fn envelope<T: Serialize>(
    verbosity: Verbosity,
    payload: &T,
    prose: impl FnOnce() -> String,
) -> Value {
    match verbosity {
        Verbosity::Prose => json!({
            "content": [{"type": "text", "text": prose()}],
            "isError": false,
        }),
        Verbosity::Full => {
            let structured = serde_json::to_value(payload).unwrap_or(Value::Null);
            json!({
                "content": [{"type": "text", "text": serde_json::to_string_pretty(&structured).unwrap_or_default()}],
                "structuredContent": structured,
                "isError": false,
            })
        }
    }
}

/// An `isError` result.
pub fn error_result(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

/// The prose form of a search.
pub fn search_prose(payload: &SearchPayload) -> String {
    let mut text = format!(
        "search {:?}: {} hit{} in {:.1} ms (terms: {}; min_should_match {}; limit {}; {} events indexed; backend {}; query id {})",
        payload.query,
        payload.hits.len(),
        if payload.hits.len() == 1 { "" } else { "s" },
        payload.elapsed_ms,
        if payload.terms.is_empty() {
            "none".to_string()
        } else {
            payload.terms.join(" ")
        },
        payload.min_should_match,
        payload.limit,
        payload.corpus_events,
        payload.backend,
        payload.query_id,
    );
    if payload.dropped_terms > 0 {
        text.push_str(&format!(
            "\n{} further terms were dropped (term cap).",
            payload.dropped_terms
        ));
    }
    for hit in &payload.hits {
        text.push_str(&format!(
            "\n\n{}. {} · session {} · turn {} · {} · score {:.3} ({} term{})\n   {}\n   → open(event_uid=\"{}\")",
            hit.rank,
            hit.class.as_str(),
            hit.session_id,
            hit.turn_seq,
            hit.timestamp,
            hit.score,
            hit.matched_terms,
            if hit.matched_terms == 1 { "" } else { "s" },
            hit.snippet,
            hit.event_uid,
        ));
    }
    text
}

/// The prose form of an open.
pub fn open_prose(payload: &OpenPayload) -> String {
    if !payload.found {
        return format!(
            "open {:?}: no such event (found: false). Use search to find event uids.",
            payload.event_uid
        );
    }
    let mut text = format!(
        "open {}: session {}, turn {}, event {}; window {} before / {} after ({} events)",
        payload.event_uid,
        payload.session_id.as_deref().unwrap_or(""),
        payload.turn_seq.unwrap_or(0),
        payload.event_order.unwrap_or(0),
        payload.before.unwrap_or(0),
        payload.after.unwrap_or(0),
        payload.events.len(),
    );
    let mut section = "";
    for event in &payload.events {
        if event.position != section {
            section = event.position;
            text.push_str(&format!("\n\n--- {section} ---"));
        }
        let body: String = event.text.chars().take(2000).collect();
        let more = if event.text.chars().count() > 2000 {
            " …"
        } else {
            ""
        };
        text.push_str(&format!(
            "\n[{}] {} · turn {} · {} · {}\n{}{}",
            event.event_order,
            event.class.as_str(),
            event.turn_seq,
            event.timestamp,
            event.event_uid,
            body.trim_end(),
            more
        ));
    }
    text
}
