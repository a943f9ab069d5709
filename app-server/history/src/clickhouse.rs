//! The ClickHouse backend over the HTTP interface (kept to SQL that ClickHouse 18.16, Debian
//! bookworm's package, understands: no window functions, no `LowCardinality`, no JOINs).
//!
//! Tables in the configured database: `events` (ordered by `(session_id, event_order)`, the
//! `trace` view reads it), `postings (term, doc, tf, dl, kind, file_id, owner)` ordered by
//! `(term, doc)`, the statistics tables `term_df`, `corpus` and `owner_docs`
//! (`SummingMergeTree`, deltas summed at read time), `files` (ingestion state, `ReplacingMergeTree`), and the
//! `query_log` / `hit_log` telemetry tables. `search` is one bounded SQL query over the
//! postings of the query terms (BM25 summed per document); statistics and the hit rows are
//! two small lookups around it. Every event and posting carries its owner (the principal
//! whose thread it belongs to), and every query of the query side filters on it.
//!
//! Ingestion is at-least-once: a batch is several INSERTs, the file state last, so a killed
//! ingest re-sends its last batch.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::backend::{
    Batch, CorpusStats, FileState, HistoryBackend, HistoryError, HitEvent, QueryLog, ScoredDoc,
    SearchPlan,
};
use crate::config::ClickHouseConfig;
use crate::event::{Event, EventClass, LOCAL_OWNER};
use crate::rollout::Cursor;
use crate::tokenize::term_frequencies;

mod delete;
mod values;

use values::{
    ch_error, error_chain, event_from_row, file_id, float, int, percent_encode, quote, scored_docs,
    string, tsv_field, version_now,
};

/// The shortest timeout of an INSERT.
const INSERT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

const EVENT_COLUMNS: &str = "doc, event_uid, session_id, event_order, turn_seq, turn_id, ts_ms, class, kind, text, payload, token_usage, source_path, owner";

/// The columns of `hit_rows`: what a search hit shows, keyed by `doc`.
const HIT_COLUMNS: &str =
    "doc, event_uid, session_id, event_order, turn_seq, turn_id, ts_ms, class, text";
const HIT_COLUMNS_TYPED: &str = "doc UInt64, event_uid String, session_id String, event_order Int64, turn_seq Int64, turn_id String, ts_ms Int64, class String, text String";

/// Rows per mark of `hit_rows`: a hit lookup reads one granule per hit and data part, so a
/// small granule keeps a top-10 fetch to a few thousand rows.
const HIT_ROWS_GRANULARITY: u32 = 256;

/// Rows per mark of `events` (payloads included): `open` reads the granules around one
/// session position. Applies to databases created from now on; an older `events` table keeps
/// ClickHouse's default of 8,192 (slower `open`, same answers).
const EVENTS_GRANULARITY: u32 = 1024;

/// A ClickHouse server holding the history.
pub struct ClickHouseBackend {
    client: reqwest::blocking::Client,
    config: ClickHouseConfig,
    /// HTTP requests sent (every statement), for the benchmark.
    requests: AtomicU64,
    /// Of those, the telemetry INSERTs (sent by the telemetry thread, off the answer path).
    telemetry_requests: AtomicU64,
}

impl ClickHouseBackend {
    /// Connects, checks the server answers and creates the schema if missing.
    pub fn connect(config: &ClickHouseConfig) -> Result<ClickHouseBackend, HistoryError> {
        // reqwest is built without a default TLS provider; HTTPS URLs use ring.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::blocking::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(ch_error)?;
        let backend = ClickHouseBackend {
            client,
            config: config.clone(),
            requests: AtomicU64::new(0),
            telemetry_requests: AtomicU64::new(0),
        };
        backend.ping()?;
        backend.create_schema()?;
        Ok(backend)
    }

    fn table(&self, name: &str) -> String {
        format!("{}.{name}", self.config.database)
    }

    fn create_schema(&self) -> Result<(), HistoryError> {
        let db = &self.config.database;
        let statements = [
            format!("CREATE DATABASE IF NOT EXISTS {db}"),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.events (doc UInt64, event_uid String, session_id String, event_order Int64, turn_seq Int64, turn_id String, ts_ms Int64, class String, kind UInt8, text String, payload String, token_usage String, source_path String, file_id UInt64, length UInt32, owner String DEFAULT 'local') ENGINE = MergeTree ORDER BY (session_id, event_order) SETTINGS index_granularity = {EVENTS_GRANULARITY}"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.hit_rows ({HIT_COLUMNS_TYPED}, file_id UInt64) ENGINE = MergeTree ORDER BY doc SETTINGS index_granularity = {HIT_ROWS_GRANULARITY}"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.postings (term String, doc UInt64, tf UInt32, dl UInt32, kind UInt8, file_id UInt64, owner String DEFAULT 'local') ENGINE = MergeTree ORDER BY (term, doc)"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.term_df (term String, df Int64) ENGINE = SummingMergeTree ORDER BY term"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.corpus (id UInt8, docs Int64, total_len Int64) ENGINE = SummingMergeTree ORDER BY id"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.owner_docs (owner String, docs Int64) ENGINE = SummingMergeTree ORDER BY owner"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.files (path String, inode UInt64, offset UInt64, fingerprint String, cursor String, corrupt_lines Int64, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY path"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.query_log (query_id String, at_ms Int64, query String, terms String, hits UInt32, elapsed_us Int64) ENGINE = MergeTree ORDER BY at_ms"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.hit_log (query_id String, rank UInt32, event_uid String, score Float64) ENGINE = MergeTree ORDER BY query_id"
            ),
        ];
        // A database written before `hit_rows` existed gets it filled from `events` once.
        let had_events = self.table_exists("events")?;
        let had_hit_rows = self.table_exists("hit_rows")?;
        let had_owner_docs = self.table_exists("owner_docs")?;
        for statement in statements {
            self.execute(&statement, None)?;
        }
        // A database written before events recorded their owner: every event so far is the
        // local user's, the new columns' default, and `owner_docs` starts with their count.
        for table in ["events", "postings"] {
            if !self.column_exists(table, "owner")? {
                tracing::info!(database = %db, table, "history: adding the owner column");
                self.execute(
                    &format!(
                        "ALTER TABLE {db}.{table} ADD COLUMN owner String DEFAULT '{LOCAL_OWNER}'"
                    ),
                    None,
                )?;
            }
        }
        if had_events && !had_owner_docs {
            self.execute(
                &format!(
                    "INSERT INTO {db}.owner_docs (owner, docs) SELECT owner, count() FROM {db}.events GROUP BY owner"
                ),
                None,
            )?;
        }
        // Last: ClickHouse checks a view's query even when the view exists, so `events` must
        // have every column first.
        self.execute(
            &format!(
                "CREATE VIEW IF NOT EXISTS {db}.trace AS SELECT {EVENT_COLUMNS} FROM {db}.events"
            ),
            None,
        )?;
        if had_events && !had_hit_rows {
            tracing::info!(
                database = %db,
                "history: filling the new hit_rows table from events (once)"
            );
            self.execute_within(
                &format!(
                    "INSERT INTO {db}.hit_rows ({HIT_COLUMNS}, file_id) SELECT {HIT_COLUMNS}, file_id FROM {db}.events"
                ),
                None,
                self.insert_timeout(),
            )?;
        }
        Ok(())
    }

    /// A condition restricting a multi-term search to the documents that can reach the top k
    /// (empty when no restriction is safe), so the aggregation groups a few thousand documents
    /// instead of every one holding a frequent term.
    ///
    /// θ is the k-th best contribution of one term (the rarest with at least k postings): k
    /// documents score at least θ, so a hit scores at least θ. A term's contribution is below
    /// `M = idf · (k1 + 1)`; with the terms ordered by `M`, a document holding only terms whose
    /// `M` add up to less than θ cannot reach it. The candidates are the documents holding one
    /// of the other terms. Only with `min_should_match = 1`: otherwise the k documents behind
    /// θ need not qualify. θ is 0 (no restriction) when the pivot's k best postings are not k
    /// distinct documents (fewer postings after the filters, or a re-sent batch).
    fn candidates(&self, plan: &SearchPlan, terms: &str, kinds: &str, session: &str) -> String {
        let k = plan.limit.max(1);
        if plan.terms.len() < 2 || plan.min_should_match > 1 {
            return String::new();
        }
        let pivot = plan
            .terms
            .iter()
            .zip(&plan.idf)
            .zip(&plan.df)
            .filter(|(_, df)| **df >= k)
            .max_by(|((_, a), _), ((_, b), _)| a.total_cmp(b))
            .map(|((term, idf), _)| (term, *idf));
        let Some((pivot, pivot_idf)) = pivot else {
            return String::new();
        };
        let (k1, b, avg) = (float(plan.k1), float(plan.b), float(plan.avg_len));
        // Prefix sums of the bounds, the terms in ascending order of bound (margin for rounding).
        let mut order: Vec<(f64, &String)> = plan
            .idf
            .iter()
            .zip(&plan.terms)
            .map(|(idf, term)| (idf * (plan.k1 + 1.0) * (1.0 + 1e-9) + 1e-12, term))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut running = 0.0;
        let (mut names, mut prefixes) = (Vec::new(), Vec::new());
        for (bound, term) in order {
            running += bound;
            names.push(quote(term));
            prefixes.push(float(running));
        }
        let postings = self.table("postings");
        format!(
            " AND doc IN (SELECT doc FROM {postings} WHERE term IN ({terms}) AND kind IN ({kinds}){session}
               AND transform(term, [{}], [{}], 0.0) >= (
                 SELECT if(uniqExact(doc) = {k}, min(c), 0.0) FROM (
                   SELECT doc,
                   {} * (tf * ({k1} + 1.0)) / (tf + {k1} * (1.0 - {b} + {b} * dl / {avg})) AS c
                   FROM {postings} WHERE term = {} AND kind IN ({kinds}){session}
                   ORDER BY c DESC LIMIT {k})))",
            names.join(", "),
            prefixes.join(", "),
            float(pivot_idf),
            quote(pivot),
        )
    }

    fn column_exists(&self, table: &str, column: &str) -> Result<bool, HistoryError> {
        let answer = self.execute(
            &format!(
                "SELECT count() FROM system.columns WHERE database = {} AND table = {} AND name = {}",
                quote(&self.config.database),
                quote(table),
                quote(column)
            ),
            None,
        )?;
        Ok(answer.trim() != "0")
    }

    fn table_exists(&self, table: &str) -> Result<bool, HistoryError> {
        let answer = self.execute(&format!("EXISTS TABLE {}", self.table(table)), None)?;
        Ok(answer.trim() == "1")
    }

    /// Runs `sql` with an optional request body (INSERT data); returns the response text.
    fn execute(&self, sql: &str, body: Option<String>) -> Result<String, HistoryError> {
        self.execute_within(sql, body, self.config.timeout)
    }

    /// [`Self::execute`] with its own timeout.
    fn execute_within(
        &self,
        sql: &str,
        body: Option<String>,
        timeout: std::time::Duration,
    ) -> Result<String, HistoryError> {
        let mut url = format!(
            "{}/?output_format_json_quote_64bit_integers=0",
            self.config.url
        );
        let body = match body {
            Some(body) => {
                url.push_str("&query=");
                url.push_str(&percent_encode(sql));
                body
            }
            None => sql.to_string(),
        };
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut request = self.client.post(url).body(body).timeout(timeout);
        if let Some(user) = &self.config.user {
            request = request.basic_auth(user, self.config.password.as_ref());
        }
        let response = request.send().map_err(|error| {
            ch_error(format!(
                "cannot reach {}: {}",
                self.config.url,
                error_chain(&error)
            ))
        })?;
        let status = response.status();
        let text = response.text().map_err(ch_error)?;
        if !status.is_success() {
            return Err(ch_error(format!(
                "HTTP {}: {}",
                status.as_u16(),
                text.trim()
            )));
        }
        Ok(text)
    }

    /// Runs a SELECT and returns its rows (`JSONCompact`).
    fn rows(&self, sql: &str) -> Result<Vec<Vec<Value>>, HistoryError> {
        let text = self.execute(&format!("{sql} FORMAT JSONCompact"), None)?;
        let value: Value = serde_json::from_str(&text).map_err(ch_error)?;
        let Some(data) = value.get("data").and_then(Value::as_array) else {
            return Err(ch_error("response without `data`"));
        };
        Ok(data
            .iter()
            .map(|row| row.as_array().cloned().unwrap_or_default())
            .collect())
    }

    fn insert(&self, table: &str, rows: &[Value]) -> Result<(), HistoryError> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut body = String::new();
        for row in rows {
            body.push_str(&row.to_string());
            body.push('\n');
        }
        self.execute_within(
            &format!("INSERT INTO {} FORMAT JSONEachRow", self.table(table)),
            Some(body),
            self.insert_timeout(),
        )?;
        Ok(())
    }

    /// Bulk inserts (an ingest batch's postings run to hundreds of thousands of rows) may take
    /// longer than a query: at least [`INSERT_TIMEOUT`].
    fn insert_timeout(&self) -> std::time::Duration {
        self.config.timeout.max(INSERT_TIMEOUT)
    }

    /// Inserts postings rows as `TabSeparated` (a third of the bytes of JSON, and cheaper for
    /// the server to parse).
    fn insert_postings(&self, body: String) -> Result<(), HistoryError> {
        if body.is_empty() {
            return Ok(());
        }
        self.execute_within(
            &format!(
                "INSERT INTO {} (term, doc, tf, dl, kind, file_id, owner) FORMAT TabSeparated",
                self.table("postings")
            ),
            Some(body),
            self.insert_timeout(),
        )?;
        Ok(())
    }

    /// The latest state of the files matching `condition` (a `WHERE` clause or nothing).
    fn read_file_states(
        &self,
        condition: &str,
    ) -> Result<HashMap<String, FileState>, HistoryError> {
        let rows = self.rows(&format!(
            "SELECT path, argMax(inode, version), argMax(offset, version), argMax(fingerprint, version), argMax(cursor, version), argMax(corrupt_lines, version) FROM {}{condition} GROUP BY path",
            self.table("files")
        ))?;
        Ok(rows
            .iter()
            .map(|row| {
                let get = |index: usize| row.get(index).cloned().unwrap_or(Value::Null);
                (
                    string(&get(0)),
                    FileState {
                        inode: int(&get(1)) as u64,
                        offset: int(&get(2)) as u64,
                        fingerprint: string(&get(3)),
                        cursor: serde_json::from_str::<Cursor>(&string(&get(4)))
                            .unwrap_or_default(),
                        corrupt_lines: int(&get(5)),
                    },
                )
            })
            .collect())
    }

    /// Reads `events` itself, not the `trace` view over it: ClickHouse 18.16 does not push a
    /// WHERE into a view, so a lookup through the view reads every row. PREWHERE: the payloads
    /// are read only for the granules that hold a match.
    fn select_events(&self, condition: &str) -> Result<Vec<Event>, HistoryError> {
        let rows = self.rows(&format!(
            "SELECT {EVENT_COLUMNS} FROM {} PREWHERE {condition}",
            self.table("events")
        ))?;
        Ok(rows.iter().map(|row| event_from_row(row)).collect())
    }
}

impl HistoryBackend for ClickHouseBackend {
    fn name(&self) -> &'static str {
        "clickhouse"
    }

    fn ping(&self) -> Result<(), HistoryError> {
        self.execute("SELECT 1", None).map(|_| ())
    }

    fn file_states(&self) -> Result<HashMap<String, FileState>, HistoryError> {
        self.read_file_states("")
    }

    fn file_state(&self, path: &str) -> Result<Option<FileState>, HistoryError> {
        Ok(self
            .read_file_states(&format!(" WHERE path = {}", quote(path)))?
            .remove(path))
    }

    fn commit(&self, batch: &Batch) -> Result<(), HistoryError> {
        let mut df: HashMap<String, i64> = HashMap::new();
        let mut docs = 0i64;
        let mut total_len = 0i64;
        let mut owner_docs: HashMap<String, i64> = HashMap::new();
        for reset in batch.files.iter().filter(|file| file.reset) {
            let removed = self.remove_file(file_id(&reset.path))?;
            removed.add_to(&mut df, &mut docs, &mut total_len, &mut owner_docs);
        }
        let mut event_rows = Vec::with_capacity(batch.events.len());
        let mut hit_rows = Vec::with_capacity(batch.events.len());
        let mut posting_rows = String::new();
        for event in &batch.events {
            let file = file_id(&event.source_path);
            let owner = tsv_field(&event.owner);
            let (frequencies, length) = term_frequencies(&event.text);
            for (term, tf) in frequencies {
                // Terms are runs of letters, digits and `_`: nothing to escape.
                let _ = writeln!(
                    posting_rows,
                    "{term}\t{}\t{tf}\t{length}\t{}\t{file}\t{owner}",
                    event.doc,
                    event.kind()
                );
                *df.entry(term).or_insert(0) += 1;
            }
            docs += 1;
            total_len += length;
            *owner_docs.entry(event.owner.clone()).or_insert(0) += 1;
            event_rows.push(json!({
                "doc": event.doc, "event_uid": event.event_uid, "session_id": event.session_id,
                "event_order": event.event_order, "turn_seq": event.turn_seq,
                "turn_id": event.turn_id, "ts_ms": event.timestamp_ms,
                "class": event.class.as_str(), "kind": event.kind(), "text": event.text,
                "payload": event.payload, "token_usage": event.token_usage,
                "source_path": event.source_path, "file_id": file, "length": length,
                "owner": event.owner,
            }));
            hit_rows.push(json!({
                "doc": event.doc, "event_uid": event.event_uid, "session_id": event.session_id,
                "event_order": event.event_order, "turn_seq": event.turn_seq,
                "turn_id": event.turn_id, "ts_ms": event.timestamp_ms,
                "class": event.class.as_str(), "text": event.text, "file_id": file,
            }));
        }
        self.insert("events", &event_rows)?;
        self.insert("hit_rows", &hit_rows)?;
        self.insert_postings(posting_rows)?;
        let df_rows: Vec<Value> = df
            .into_iter()
            .filter(|(_, delta)| *delta != 0)
            .map(|(term, delta)| json!({"term": term, "df": delta}))
            .collect();
        self.insert("term_df", &df_rows)?;
        if docs != 0 || total_len != 0 {
            self.insert(
                "corpus",
                &[json!({"id": 0, "docs": docs, "total_len": total_len})],
            )?;
        }
        let owner_rows: Vec<Value> = owner_docs
            .into_iter()
            .filter(|(_, delta)| *delta != 0)
            .map(|(owner, delta)| json!({"owner": owner, "docs": delta}))
            .collect();
        self.insert("owner_docs", &owner_rows)?;
        let version = version_now();
        let files: Vec<Value> = batch
            .files
            .iter()
            .map(|file| {
                let state = &file.state;
                json!({
                    "path": file.path, "inode": state.inode, "offset": state.offset,
                    "fingerprint": state.fingerprint,
                    "cursor": serde_json::to_string(&state.cursor).unwrap_or_default(),
                    "corrupt_lines": state.corrupt_lines, "version": version,
                })
            })
            .collect();
        self.insert("files", &files)
    }

    fn delete_session(&self, session_id: &str) -> Result<u64, HistoryError> {
        self.delete_session_rows(session_id)
    }

    fn corpus_stats(&self, terms: &[String], owner: &str) -> Result<CorpusStats, HistoryError> {
        let corpus = self.rows(&format!(
            "SELECT sum(docs), sum(total_len) FROM {}",
            self.table("corpus")
        ))?;
        let first = corpus.first().cloned().unwrap_or_default();
        let mut docs = int(first.first().unwrap_or(&Value::Null));
        let mut total_len = int(first.get(1).unwrap_or(&Value::Null));
        let term_list = terms
            .iter()
            .map(|term| quote(term))
            .collect::<Vec<_>>()
            .join(", ");
        let mut df_by_term: HashMap<String, i64> = HashMap::new();
        if docs > 0 {
            if !terms.is_empty() {
                for row in self.rows(&format!(
                    "SELECT term, sum(df) FROM {} WHERE term IN ({term_list}) GROUP BY term",
                    self.table("term_df")
                ))? {
                    df_by_term.insert(
                        string(row.first().unwrap_or(&Value::Null)),
                        int(row.get(1).unwrap_or(&Value::Null)),
                    );
                }
            }
        } else {
            // No statistics: aggregate over the base data.
            let base = self.rows(&format!(
                "SELECT count(), sum(length) FROM {}",
                self.table("events")
            ))?;
            let first = base.first().cloned().unwrap_or_default();
            docs = int(first.first().unwrap_or(&Value::Null));
            total_len = int(first.get(1).unwrap_or(&Value::Null));
            if !terms.is_empty() {
                for row in self.rows(&format!(
                    "SELECT term, uniqExact(doc) FROM {} WHERE term IN ({term_list}) GROUP BY term",
                    self.table("postings")
                ))? {
                    df_by_term.insert(
                        string(row.first().unwrap_or(&Value::Null)),
                        int(row.get(1).unwrap_or(&Value::Null)),
                    );
                }
            }
        }
        let owner_docs = self.rows(&format!(
            "SELECT sum(docs) FROM {} WHERE owner = {}",
            self.table("owner_docs"),
            quote(owner)
        ))?;
        let owner_docs = int(owner_docs
            .first()
            .and_then(|row| row.first())
            .unwrap_or(&Value::Null));
        let avg_len = if docs > 0 {
            total_len as f64 / docs as f64
        } else {
            1.0
        };
        Ok(CorpusStats {
            docs,
            owner_docs,
            avg_len: avg_len.max(1.0),
            df: terms
                .iter()
                .map(|term| df_by_term.get(term).copied().unwrap_or(0))
                .collect(),
        })
    }

    fn search(&self, plan: &SearchPlan) -> Result<Vec<ScoredDoc>, HistoryError> {
        if plan.terms.is_empty() {
            return Ok(Vec::new());
        }
        let terms = plan
            .terms
            .iter()
            .map(|term| quote(term))
            .collect::<Vec<_>>()
            .join(", ");
        let idfs = plan
            .idf
            .iter()
            .map(|idf| float(*idf))
            .collect::<Vec<_>>()
            .join(", ");
        let kinds = plan
            .kinds
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let (k1, b, avg) = (float(plan.k1), float(plan.b), float(plan.avg_len));
        // Only the asker's postings are ranked: another principal's never take a place in
        // the top k.
        let session = match &plan.session_id {
            Some(session_id) => format!(
                " AND owner = {} AND doc IN (SELECT doc FROM {} WHERE session_id = {})",
                quote(&plan.owner),
                self.table("events"),
                quote(session_id)
            ),
            None => format!(" AND owner = {}", quote(&plan.owner)),
        };
        let min_score = match plan.min_score {
            Some(min_score) => format!(" AND score >= {}", float(min_score)),
            None => String::new(),
        };
        let candidates = self.candidates(plan, &terms, &kinds, &session);
        let grouped = format!(
            "SELECT doc, sum(transform(term, [{terms}], [{idfs}], 0.0) * (tf * ({k1} + 1.0)) / (tf + {k1} * (1.0 - {b} + {b} * dl / {avg}))) AS score, count() AS matched
             FROM {} WHERE term IN ({terms}) AND kind IN ({kinds}){session}{candidates}
             GROUP BY doc HAVING matched >= {} {min_score}
             ORDER BY score DESC, doc ASC LIMIT {}",
            self.table("postings"),
            plan.min_should_match,
            plan.limit
        );
        if let ([term], [idf]) = (plan.terms.as_slice(), plan.idf.as_slice()) {
            // One term has one posting per document: no aggregation, just the top rows (a
            // partial sort instead of a hash table over every matching document). The score
            // is the same expression, so the same bits as the sum over one posting.
            let sql = format!(
                "SELECT doc, {} * (tf * ({k1} + 1.0)) / (tf + {k1} * (1.0 - {b} + {b} * dl / {avg})) AS score, 1 AS matched
                 FROM {} WHERE term = {} AND kind IN ({kinds}){session}{}
                 ORDER BY score DESC, doc ASC LIMIT {}",
                float(*idf),
                self.table("postings"),
                quote(term),
                plan.min_score
                    .map(|min_score| format!(" AND score >= {}", float(min_score)))
                    .unwrap_or_default(),
                plan.limit
            );
            let hits = scored_docs(&self.rows(&sql)?);
            // A re-sent batch (ingestion is at-least-once) can leave a posting twice; the
            // aggregating query handles that case as it always has.
            let mut docs: Vec<i64> = hits.iter().map(|hit| hit.doc).collect();
            docs.sort_unstable();
            docs.dedup();
            if docs.len() == hits.len() {
                return Ok(hits);
            }
        }
        Ok(scored_docs(&self.rows(&grouped)?))
    }

    fn hit_events(&self, docs: &[i64]) -> Result<Vec<HitEvent>, HistoryError> {
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        let list = docs
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        // `hit_rows` is sorted by doc: the primary key narrows this to one granule per hit and
        // data part, and PREWHERE reads the texts of only the granules that hold a hit.
        let rows = self.rows(&format!(
            "SELECT {HIT_COLUMNS} FROM {} PREWHERE doc IN ({list})",
            self.table("hit_rows")
        ))?;
        Ok(rows
            .iter()
            .map(|row| {
                let get = |index: usize| row.get(index).cloned().unwrap_or(Value::Null);
                HitEvent {
                    doc: int(&get(0)),
                    event_uid: string(&get(1)),
                    session_id: string(&get(2)),
                    event_order: int(&get(3)),
                    turn_seq: int(&get(4)),
                    turn_id: string(&get(5)),
                    timestamp_ms: int(&get(6)),
                    class: EventClass::parse(&string(&get(7))).unwrap_or(EventClass::Error),
                    text: string(&get(8)),
                }
            })
            .collect())
    }

    fn event_by_uid(&self, event_uid: &str, owner: &str) -> Result<Option<Event>, HistoryError> {
        let doc = crate::event::doc_id(event_uid);
        let mut condition = format!(
            "doc = {doc} AND event_uid = {} AND owner = {}",
            quote(event_uid),
            quote(owner)
        );
        if let Some((session_id, order)) = event_uid.rsplit_once(':')
            && let Ok(order) = order.parse::<i64>()
        {
            condition = format!(
                "session_id = {} AND event_order = {order} AND {condition}",
                quote(session_id)
            );
        }
        Ok(self
            .select_events(&format!("{condition} LIMIT 1"))?
            .into_iter()
            .next())
    }

    fn window(
        &self,
        session_id: &str,
        owner: &str,
        event_order: i64,
        before: i64,
        after: i64,
    ) -> Result<Vec<Event>, HistoryError> {
        let session = format!("{} AND owner = {}", quote(session_id), quote(owner));
        let mut events = self.select_events(&format!(
            "session_id = {session} AND event_order < {event_order} ORDER BY event_order DESC LIMIT {before}"
        ))?;
        events.reverse();
        events.extend(self.select_events(&format!(
            "session_id = {session} AND event_order >= {event_order} ORDER BY event_order ASC LIMIT {}",
            after + 1
        ))?);
        Ok(events)
    }

    fn log_queries(&self, logs: &[QueryLog]) -> Result<(), HistoryError> {
        // One INSERT per table for the whole batch.
        let queries: Vec<Value> = logs
            .iter()
            .map(|log| {
                json!({
                    "query_id": log.query_id, "at_ms": log.at_ms, "query": log.query,
                    "terms": log.terms.join(" "), "hits": log.hits.len(),
                    "elapsed_us": log.elapsed_us,
                })
            })
            .collect();
        self.telemetry_requests.fetch_add(
            1 + u64::from(logs.iter().any(|log| !log.hits.is_empty())),
            Ordering::Relaxed,
        );
        self.insert("query_log", &queries)?;
        let hits: Vec<Value> = logs
            .iter()
            .flat_map(|log| {
                log.hits.iter().map(|(rank, event_uid, score)| {
                    json!({"query_id": log.query_id, "rank": rank, "event_uid": event_uid, "score": score})
                })
            })
            .collect();
        self.insert("hit_log", &hits)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("requests", self.requests.load(Ordering::Relaxed)),
            (
                "log inserts",
                self.telemetry_requests.load(Ordering::Relaxed),
            ),
        ]
    }

    fn event_count(&self) -> Result<i64, HistoryError> {
        let rows = self.rows(&format!("SELECT count() FROM {}", self.table("events")))?;
        Ok(int(rows
            .first()
            .and_then(|row| row.first())
            .unwrap_or(&Value::Null)))
    }
}
