//! The embedded backend: one SQLite file (WAL) holding the ordered event store, our own
//! postings tables (`terms` with document frequencies, `postings (tid, doc, tf, dl, kind)`
//! clustered by term) and corpus statistics, all updated in the same transaction as the
//! per-file ingestion state. A killed ingest loses only its open transaction; readers never
//! see a half-written batch.
//!
//! Own postings rather than FTS5: BM25 parameters come from config and the scores must match
//! the ClickHouse backend's SQL exactly, which FTS5's fixed `bm25()` cannot promise.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use crate::backend::{
    Batch, CorpusStats, FileState, HistoryBackend, HistoryError, QueryLog, ScoredDoc, SearchPlan,
};
use crate::event::{Event, EventClass, HISTORY_TOOL_FLAG};
use crate::rollout::Cursor;
use crate::tokenize::term_frequencies;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, inode INTEGER NOT NULL, offset INTEGER NOT NULL,
    fingerprint TEXT NOT NULL, cursor TEXT NOT NULL, corrupt_lines INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    doc INTEGER PRIMARY KEY, event_uid TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL,
    event_order INTEGER NOT NULL, turn_seq INTEGER NOT NULL, turn_id TEXT NOT NULL,
    ts_ms INTEGER NOT NULL, class TEXT NOT NULL, kind INTEGER NOT NULL, text TEXT NOT NULL,
    payload TEXT NOT NULL, token_usage TEXT NOT NULL, source_path TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_trace ON events (session_id, event_order);
CREATE INDEX IF NOT EXISTS events_source ON events (source_path);
CREATE TABLE IF NOT EXISTS terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS postings (
    tid INTEGER NOT NULL, doc INTEGER NOT NULL, tf INTEGER NOT NULL, dl INTEGER NOT NULL,
    kind INTEGER NOT NULL, PRIMARY KEY (tid, doc)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS corpus (id INTEGER PRIMARY KEY CHECK (id = 0), docs INTEGER NOT NULL, total_len INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS query_log (query_id TEXT NOT NULL, at_ms INTEGER NOT NULL, query TEXT NOT NULL, terms TEXT NOT NULL, hits INTEGER NOT NULL, elapsed_us INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hit_log (query_id TEXT NOT NULL, rank INTEGER NOT NULL, event_uid TEXT NOT NULL, score REAL NOT NULL);
CREATE VIEW IF NOT EXISTS trace AS SELECT * FROM events ORDER BY session_id, event_order;
";

const EVENT_COLUMNS: &str = "doc, event_uid, session_id, event_order, turn_seq, turn_id, ts_ms, class, kind, text, payload, token_usage, source_path";

/// The SQLite index.
pub struct EmbeddedBackend {
    writer: Mutex<Writer>,
    reader: Mutex<Connection>,
}

struct Writer {
    connection: Connection,
    /// Term ids known to be committed.
    term_ids: HashMap<String, i64>,
}

impl EmbeddedBackend {
    /// Opens (creating if needed) the index at `path`.
    pub fn open(path: &Path) -> Result<EmbeddedBackend, HistoryError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|error| HistoryError::Io {
                path: parent.display().to_string(),
                message: error.to_string(),
            })?;
        }
        let connection = Connection::open(path)?;
        connection.busy_timeout(std::time::Duration::from_secs(10))?;
        // WAL: readers see the last committed batch while a writer works; `NORMAL` makes a
        // commit durable against a killed process (the WAL is in the OS) without an fsync
        // per commit.
        // The switch to WAL and the schema run without syncs: `tandem app-server` opens the
        // index before it answers `initialize`, and creating it on a new home cost several
        // fsyncs there. A killed process cannot lose what the OS already has; the tables are
        // empty at this point, and every later commit runs with `NORMAL`.
        connection.pragma_update(None, "synchronous", "OFF")?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.execute_batch(SCHEMA)?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        let reader = Connection::open(path)?;
        reader.busy_timeout(std::time::Duration::from_secs(10))?;
        reader.pragma_update(None, "cache_size", -65_536)?;
        connection.pragma_update(None, "cache_size", -262_144)?;
        Ok(EmbeddedBackend {
            writer: Mutex::new(Writer {
                connection,
                term_ids: HashMap::new(),
            }),
            reader: Mutex::new(reader),
        })
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        self.reader
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn event_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Event> {
    let class: String = row.get(7)?;
    let kind: i64 = row.get(8)?;
    Ok(Event {
        doc: row.get(0)?,
        event_uid: row.get(1)?,
        session_id: row.get(2)?,
        event_order: row.get(3)?,
        turn_seq: row.get(4)?,
        turn_id: row.get(5)?,
        timestamp_ms: row.get(6)?,
        class: EventClass::parse(&class).unwrap_or(EventClass::Error),
        history_tool: kind >= HISTORY_TOOL_FLAG,
        text: row.get(9)?,
        payload: row.get(10)?,
        token_usage: row.get(11)?,
        source_path: row.get(12)?,
    })
}

impl Writer {
    fn term_id(
        known: &HashMap<String, i64>,
        transaction: &rusqlite::Transaction<'_>,
        term: &str,
        fresh: &mut HashMap<String, i64>,
    ) -> Result<i64, HistoryError> {
        if let Some(id) = known.get(term).or_else(|| fresh.get(term)) {
            return Ok(*id);
        }
        let mut select = transaction.prepare_cached("SELECT id FROM terms WHERE term = ?1")?;
        let id = match select
            .query_row([term], |row| row.get::<_, i64>(0))
            .optional()?
        {
            Some(id) => id,
            None => {
                let mut insert =
                    transaction.prepare_cached("INSERT INTO terms (term, df) VALUES (?1, 0)")?;
                insert.execute([term])?;
                transaction.last_insert_rowid()
            }
        };
        fresh.insert(term.to_string(), id);
        Ok(id)
    }

    /// Removes one document and its postings, adjusting the statistics deltas.
    fn remove_doc(
        known: &HashMap<String, i64>,
        transaction: &rusqlite::Transaction<'_>,
        doc: i64,
        text: &str,
        deltas: &mut Deltas,
        fresh: &mut HashMap<String, i64>,
    ) -> Result<(), HistoryError> {
        let (frequencies, length) = term_frequencies(text);
        for term in frequencies.keys() {
            let tid = Writer::term_id(known, transaction, term, fresh)?;
            let mut delete =
                transaction.prepare_cached("DELETE FROM postings WHERE tid = ?1 AND doc = ?2")?;
            delete.execute(params![tid, doc])?;
            *deltas.df.entry(tid).or_insert(0) -= 1;
        }
        deltas.docs -= 1;
        deltas.total_len -= length;
        let mut delete = transaction.prepare_cached("DELETE FROM events WHERE doc = ?1")?;
        delete.execute([doc])?;
        Ok(())
    }

    fn commit(&mut self, batch: &Batch) -> Result<(), HistoryError> {
        let mut fresh = HashMap::new();
        let result = self.commit_inner(batch, &mut fresh);
        if result.is_ok() {
            self.term_ids.extend(fresh);
        }
        result
    }

    fn commit_inner(
        &mut self,
        batch: &Batch,
        fresh: &mut HashMap<String, i64>,
    ) -> Result<(), HistoryError> {
        let known = &self.term_ids;
        {
            let transaction = self.connection.transaction()?;
            let mut deltas = Deltas::default();
            for file in batch.files.iter().filter(|file| file.reset) {
                let old: Vec<(i64, String)> = {
                    let mut select = transaction
                        .prepare_cached("SELECT doc, text FROM events WHERE source_path = ?1")?;
                    select
                        .query_map([&file.path], |row| Ok((row.get(0)?, row.get(1)?)))?
                        .collect::<Result<_, _>>()?
                };
                for (doc, text) in old {
                    Writer::remove_doc(known, &transaction, doc, &text, &mut deltas, fresh)?;
                }
            }
            for event in &batch.events {
                let existing: Option<String> = {
                    let mut select =
                        transaction.prepare_cached("SELECT text FROM events WHERE doc = ?1")?;
                    select.query_row([event.doc], |row| row.get(0)).optional()?
                };
                if let Some(text) = existing {
                    Writer::remove_doc(known, &transaction, event.doc, &text, &mut deltas, fresh)?;
                }
                {
                    let mut insert = transaction.prepare_cached(&format!(
                        "INSERT INTO events ({EVENT_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
                    ))?;
                    insert.execute(params![
                        event.doc,
                        event.event_uid,
                        event.session_id,
                        event.event_order,
                        event.turn_seq,
                        event.turn_id,
                        event.timestamp_ms,
                        event.class.as_str(),
                        event.kind(),
                        event.text,
                        event.payload,
                        event.token_usage,
                        event.source_path,
                    ])?;
                }
                let (frequencies, length) = term_frequencies(&event.text);
                for (term, tf) in frequencies {
                    let tid = Writer::term_id(known, &transaction, &term, fresh)?;
                    let mut insert = transaction.prepare_cached(
                        "INSERT INTO postings (tid, doc, tf, dl, kind) VALUES (?1, ?2, ?3, ?4, ?5)",
                    )?;
                    insert.execute(params![tid, event.doc, tf, length, event.kind()])?;
                    *deltas.df.entry(tid).or_insert(0) += 1;
                }
                deltas.docs += 1;
                deltas.total_len += length;
            }
            {
                let mut update =
                    transaction.prepare_cached("UPDATE terms SET df = df + ?1 WHERE id = ?2")?;
                for (tid, delta) in &deltas.df {
                    if *delta != 0 {
                        update.execute(params![delta, tid])?;
                    }
                }
            }
            transaction.execute(
                "INSERT INTO corpus (id, docs, total_len) VALUES (0, ?1, ?2)
                 ON CONFLICT (id) DO UPDATE SET docs = docs + ?1, total_len = total_len + ?2",
                params![deltas.docs, deltas.total_len],
            )?;
            for file in &batch.files {
                let cursor = serde_json::to_string(&file.state.cursor).unwrap_or_default();
                let mut upsert = transaction.prepare_cached(
                    "INSERT INTO files (path, inode, offset, fingerprint, cursor, corrupt_lines)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (path) DO UPDATE SET inode = ?2, offset = ?3, fingerprint = ?4,
                     cursor = ?5, corrupt_lines = ?6",
                )?;
                upsert.execute(params![
                    file.path,
                    file.state.inode as i64,
                    file.state.offset as i64,
                    file.state.fingerprint,
                    cursor,
                    file.state.corrupt_lines
                ])?;
            }
            transaction.commit()?;
            Ok(())
        }
    }
}

#[derive(Default)]
struct Deltas {
    df: HashMap<i64, i64>,
    docs: i64,
    total_len: i64,
}

impl HistoryBackend for EmbeddedBackend {
    fn name(&self) -> &'static str {
        "embedded"
    }

    fn ping(&self) -> Result<(), HistoryError> {
        self.reader()
            .query_row("SELECT 1", [], |row| row.get::<_, i64>(0))?;
        Ok(())
    }

    fn file_states(&self) -> Result<HashMap<String, FileState>, HistoryError> {
        let reader = self.reader();
        let mut select = reader.prepare_cached(
            "SELECT path, inode, offset, fingerprint, cursor, corrupt_lines FROM files",
        )?;
        let rows = select.query_map([], |row| {
            let cursor: String = row.get(4)?;
            Ok((
                row.get::<_, String>(0)?,
                FileState {
                    inode: row.get::<_, i64>(1)? as u64,
                    offset: row.get::<_, i64>(2)? as u64,
                    fingerprint: row.get(3)?,
                    cursor: serde_json::from_str::<Cursor>(&cursor).unwrap_or_default(),
                    corrupt_lines: row.get(5)?,
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn file_state(&self, path: &str) -> Result<Option<FileState>, HistoryError> {
        let reader = self.reader();
        let mut select = reader.prepare_cached(
            "SELECT inode, offset, fingerprint, cursor, corrupt_lines FROM files WHERE path = ?1",
        )?;
        Ok(select
            .query_row([path], |row| {
                let cursor: String = row.get(3)?;
                Ok(FileState {
                    inode: row.get::<_, i64>(0)? as u64,
                    offset: row.get::<_, i64>(1)? as u64,
                    fingerprint: row.get(2)?,
                    cursor: serde_json::from_str::<Cursor>(&cursor).unwrap_or_default(),
                    corrupt_lines: row.get(4)?,
                })
            })
            .optional()?)
    }

    fn commit(&self, batch: &Batch) -> Result<(), HistoryError> {
        let mut writer = self
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let result = writer.commit(batch);
        if result.is_err() {
            writer.term_ids.clear();
        }
        result
    }

    fn corpus_stats(&self, terms: &[String]) -> Result<CorpusStats, HistoryError> {
        let reader = self.reader();
        let corpus: Option<(i64, i64)> = reader
            .query_row(
                "SELECT docs, total_len FROM corpus WHERE id = 0",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        let (docs, total_len) = match corpus {
            Some(corpus) if corpus.0 > 0 => corpus,
            // No statistics row: aggregate over the base data.
            _ => reader.query_row(
                "SELECT count(*), coalesce(sum(dl), 0) FROM (SELECT doc, max(dl) AS dl FROM postings GROUP BY doc)",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?,
        };
        let mut select = reader.prepare_cached("SELECT df FROM terms WHERE term = ?1")?;
        let mut df = Vec::with_capacity(terms.len());
        for term in terms {
            df.push(
                select
                    .query_row([term], |row| row.get::<_, i64>(0))
                    .optional()?
                    .unwrap_or(0),
            );
        }
        let avg_len = if docs > 0 {
            total_len as f64 / docs as f64
        } else {
            1.0
        };
        Ok(CorpusStats {
            docs,
            avg_len: avg_len.max(1.0),
            df,
        })
    }

    fn search(&self, plan: &SearchPlan) -> Result<Vec<ScoredDoc>, HistoryError> {
        let reader = self.reader();
        let mut values: Vec<rusqlite::types::Value> = Vec::new();
        let mut rows = Vec::new();
        for (term, idf) in plan.terms.iter().zip(&plan.idf) {
            rows.push(format!("(?{}, ?{})", values.len() + 1, values.len() + 2));
            values.push(term.clone().into());
            values.push((*idf).into());
        }
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let kinds = plan
            .kinds
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let mut next = values.len();
        let mut param = |value: rusqlite::types::Value, values: &mut Vec<_>| {
            values.push(value);
            next += 1;
            format!("?{next}")
        };
        let k1 = param(plan.k1.into(), &mut values);
        let b = param(plan.b.into(), &mut values);
        let avg = param(plan.avg_len.into(), &mut values);
        let session = match &plan.session_id {
            Some(session_id) => format!(
                " AND p.doc IN (SELECT doc FROM events WHERE session_id = {})",
                param(session_id.clone().into(), &mut values)
            ),
            None => String::new(),
        };
        let msm = param(plan.min_should_match.into(), &mut values);
        let min_score = match plan.min_score {
            Some(min_score) => format!(" AND score >= {}", param(min_score.into(), &mut values)),
            None => String::new(),
        };
        let limit = param(plan.limit.into(), &mut values);
        let sql = format!(
            "WITH q (term, idf) AS (VALUES {}),
                  t (tid, idf) AS (SELECT terms.id, q.idf FROM q JOIN terms ON terms.term = q.term)
             SELECT p.doc,
                    sum(t.idf * (p.tf * ({k1} + 1.0)) / (p.tf + {k1} * (1.0 - {b} + {b} * p.dl / {avg}))) AS score,
                    count(*) AS matched
             FROM t JOIN postings p ON p.tid = t.tid
             WHERE p.kind IN ({kinds}){session}
             GROUP BY p.doc
             HAVING matched >= {msm}{min_score}
             ORDER BY score DESC, p.doc ASC
             LIMIT {limit}",
            rows.join(", ")
        );
        let mut select = reader.prepare_cached(&sql)?;
        let found = select.query_map(params_from_iter(values), |row| {
            Ok(ScoredDoc {
                doc: row.get(0)?,
                score: row.get(1)?,
                matched: row.get(2)?,
            })
        })?;
        Ok(found.collect::<Result<_, _>>()?)
    }

    fn events_by_doc(&self, docs: &[i64]) -> Result<Vec<Event>, HistoryError> {
        let reader = self.reader();
        let mut select = reader.prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE doc = ?1"
        ))?;
        let mut events = Vec::with_capacity(docs.len());
        for doc in docs {
            if let Some(event) = select.query_row([doc], event_from_row).optional()? {
                events.push(event);
            }
        }
        Ok(events)
    }

    fn event_by_uid(&self, event_uid: &str) -> Result<Option<Event>, HistoryError> {
        let reader = self.reader();
        let mut select = reader.prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE event_uid = ?1"
        ))?;
        Ok(select.query_row([event_uid], event_from_row).optional()?)
    }

    fn window(
        &self,
        session_id: &str,
        event_order: i64,
        before: i64,
        after: i64,
    ) -> Result<Vec<Event>, HistoryError> {
        let reader = self.reader();
        let mut earlier = reader.prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE session_id = ?1 AND event_order < ?2
             ORDER BY event_order DESC LIMIT ?3"
        ))?;
        let mut events: Vec<Event> = earlier
            .query_map(params![session_id, event_order, before], event_from_row)?
            .collect::<Result<_, _>>()?;
        events.reverse();
        let mut later = reader.prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE session_id = ?1 AND event_order >= ?2
             ORDER BY event_order ASC LIMIT ?3"
        ))?;
        let rest: Vec<Event> = later
            .query_map(params![session_id, event_order, after + 1], event_from_row)?
            .collect::<Result<_, _>>()?;
        events.extend(rest);
        Ok(events)
    }

    fn log_query(&self, log: &QueryLog) -> Result<(), HistoryError> {
        let mut writer = self
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let transaction = writer.connection.transaction()?;
        transaction.execute(
            "INSERT INTO query_log (query_id, at_ms, query, terms, hits, elapsed_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                log.query_id,
                log.at_ms,
                log.query,
                log.terms.join(" "),
                log.hits.len() as i64,
                log.elapsed_us
            ],
        )?;
        for (rank, event_uid, score) in &log.hits {
            transaction.execute(
                "INSERT INTO hit_log (query_id, rank, event_uid, score) VALUES (?1, ?2, ?3, ?4)",
                params![log.query_id, rank, event_uid, score],
            )?;
        }
        transaction.commit()?;
        Ok(())
    }

    fn event_count(&self) -> Result<i64, HistoryError> {
        Ok(self
            .reader()
            .query_row("SELECT count(*) FROM events", [], |row| row.get(0))?)
    }
}
