//! The embedded backend: one SQLite file (WAL) holding the ordered event store, our own
//! block postings (see [`crate::postings`]; `terms` with document frequencies, `blocks` of up
//! to 128 postings per row, clustered by term) and corpus statistics, all updated in the same
//! transaction as the per-file ingestion state. A killed ingest loses only its open
//! transaction; readers never see a half-written batch.
//!
//! Own postings rather than FTS5: BM25 parameters come from config and the scores must match
//! the ClickHouse backend's SQL exactly, which FTS5's fixed `bm25()` cannot promise. A query
//! reads the blocks of its terms and ranks them with MaxScore and block-max bounds
//! ([`crate::topk`]), so it decodes a few blocks of the frequent terms instead of every
//! posting. What a query read about its terms is kept for the next ones by the reader's term
//! cache (`term_cache`), emptied whenever another connection commits. Query and hit logs go
//! to a file of their own (`index.telemetry.sqlite`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, params};

use crate::backend::{
    Batch, CorpusStats, FileState, HistoryBackend, HistoryError, HitEvent, QueryLog, ScoredDoc,
    SearchPlan,
};
use crate::event::{Event, EventClass, HISTORY_TOOL_FLAG, doc_id};
use crate::postings;
use crate::rollout::Cursor;
use crate::topk::{Filter, TermList, TopKStats, block_bounds, top_k};

mod term_cache;
mod writer;

use term_cache::{TermCache, data_version};
use writer::Writer;

/// Layout version (`PRAGMA user_version`). Versions 2 (blocks without a score frontier) and 3
/// (events without an owner) are migrated in place; an index of any other version is rebuilt.
const SCHEMA_VERSION: i64 = 4;

/// Version 2 → 3: blocks gain their score frontier. Existing blocks keep `NULL` there and are
/// bounded by their `(max_tf, min_dl)` until they are rewritten.
const MIGRATE_2_TO_3: &str = "ALTER TABLE blocks ADD COLUMN frontier BLOB;";

/// Version 3 → 4: events gain their owner ([`ADD_OWNER`], when they lack it), and `owners`
/// counts each owner's events. Every event indexed before came from a rollout written before
/// owners were recorded: the local user's, the column's default
/// ([`crate::event::LOCAL_OWNER`]).
const MIGRATE_3_TO_4: &str = "
CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO owners (owner, docs) SELECT owner, count(*) FROM events GROUP BY owner;
";

/// The owner column of version 4, added to the events of an older index.
const ADD_OWNER: &str = "ALTER TABLE events ADD COLUMN owner TEXT NOT NULL DEFAULT 'local';";

const DROP_OLD: &str = "
DROP VIEW IF EXISTS trace;
DROP TABLE IF EXISTS postings;
DROP TABLE IF EXISTS blocks;
DROP TABLE IF EXISTS terms;
DROP TABLE IF EXISTS events;
DROP TABLE IF EXISTS corpus;
DROP TABLE IF EXISTS owners;
DROP TABLE IF EXISTS files;
";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, inode INTEGER NOT NULL, offset INTEGER NOT NULL,
    fingerprint TEXT NOT NULL, cursor TEXT NOT NULL, corrupt_lines INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    n INTEGER PRIMARY KEY AUTOINCREMENT, doc INTEGER NOT NULL UNIQUE,
    owner TEXT NOT NULL DEFAULT 'local', event_uid TEXT NOT NULL,
    session_id TEXT NOT NULL, event_order INTEGER NOT NULL, turn_seq INTEGER NOT NULL,
    turn_id TEXT NOT NULL, ts_ms INTEGER NOT NULL, class TEXT NOT NULL, kind INTEGER NOT NULL,
    text TEXT NOT NULL, payload TEXT NOT NULL, token_usage TEXT NOT NULL,
    source_path TEXT NOT NULL, dl INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS events_trace ON events (session_id, event_order);
CREATE INDEX IF NOT EXISTS events_source ON events (source_path);
CREATE TABLE IF NOT EXISTS terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (
    tid INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, count INTEGER NOT NULL,
    max_tf INTEGER NOT NULL, min_dl INTEGER NOT NULL, frontier BLOB, data BLOB NOT NULL,
    PRIMARY KEY (tid, first)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS corpus (id INTEGER PRIMARY KEY CHECK (id = 0), docs INTEGER NOT NULL, total_len INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
CREATE VIEW IF NOT EXISTS trace AS SELECT * FROM events ORDER BY session_id, event_order;
";

const EVENT_COLUMNS: &str = "doc, event_uid, session_id, event_order, turn_seq, turn_id, ts_ms, class, kind, text, payload, token_usage, source_path, owner";

/// The telemetry file's tables. Telemetry lives in its own file: a commit to the index file
/// would change its `data_version` and so empty the reader's [`TermCache`] after every search.
const TELEMETRY_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS query_log (query_id TEXT NOT NULL, at_ms INTEGER NOT NULL, query TEXT NOT NULL, terms TEXT NOT NULL, hits INTEGER NOT NULL, elapsed_us INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hit_log (query_id TEXT NOT NULL, rank INTEGER NOT NULL, event_uid TEXT NOT NULL, score REAL NOT NULL);
";

/// The SQLite index.
pub struct EmbeddedBackend {
    writer: Mutex<Writer>,
    reader: Mutex<Reader>,
    /// The query and hit logs' file (opened by the first log written).
    telemetry_path: PathBuf,
    telemetry: Mutex<Option<Connection>>,
    counters: Counters,
}

/// Work done by searches, for the benchmark.
#[derive(Default)]
struct Counters {
    searches: AtomicU64,
    statements: AtomicU64,
    blocks_decoded: AtomicU64,
    blocks_skipped: AtomicU64,
    candidates_scored: AtomicU64,
    term_cache_hits: AtomicU64,
    term_cache_misses: AtomicU64,
    term_cache_resets: AtomicU64,
    block_cache_hits: AtomicU64,
}

struct Reader {
    connection: Connection,
    cache: TermCache,
}

impl EmbeddedBackend {
    /// Opens (creating if needed) the index at `path`. An index written by an older layout is
    /// dropped and rebuilt by the next ingest (its file states go with it).
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
        // per commit. The switch to WAL and the schema run without syncs: the tables are
        // empty at this point, and every later commit runs with `NORMAL`.
        connection.pragma_update(None, "synchronous", "OFF")?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        let version: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if version != SCHEMA_VERSION {
            // Checked again under the write lock: another process may be creating the same
            // index right now.
            let transaction = rusqlite::Transaction::new_unchecked(
                &connection,
                rusqlite::TransactionBehavior::Immediate,
            )?;
            let version: i64 =
                transaction.query_row("PRAGMA user_version", [], |row| row.get(0))?;
            if version == 2 || version == 3 {
                if version == 2 {
                    transaction.execute_batch(MIGRATE_2_TO_3)?;
                }
                let has_owner: bool = transaction.query_row(
                    "SELECT EXISTS (SELECT 1 FROM pragma_table_info('events') WHERE name = 'owner')",
                    [],
                    |row| row.get(0),
                )?;
                if !has_owner {
                    transaction.execute_batch(ADD_OWNER)?;
                }
                transaction.execute_batch(MIGRATE_3_TO_4)?;
                transaction.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            } else if version != SCHEMA_VERSION {
                transaction.execute_batch(DROP_OLD)?;
                transaction.execute_batch(SCHEMA)?;
                transaction.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            }
            transaction.commit()?;
        }
        // A statement whose plan may depend on a bound value is re-prepared whenever that
        // value changes (SQLite's "reprepare on bind"): the append path's tail lookup
        // (`WHERE tid = ?1 ORDER BY first DESC LIMIT 1`) was compiled again for every term of
        // every batch. Every statement here is a key lookup whose plan never depends on the
        // value, so plans are fixed once prepared.
        connection.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        // Checkpoints copy the WAL back with an fsync; larger steps mean fewer of them during
        // a bulk ingest.
        connection.pragma_update(None, "wal_autocheckpoint", 8192)?;
        let reader = Connection::open(path)?;
        reader.busy_timeout(std::time::Duration::from_secs(10))?;
        reader.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )?;
        // No mmap: measured at a million events, mapping the file raised the mean CPU time of
        // a search (page faults on first touch) instead of lowering it.
        reader.pragma_update(None, "cache_size", -65_536)?;
        connection.pragma_update(None, "cache_size", -262_144)?;
        Ok(EmbeddedBackend {
            writer: Mutex::new(Writer {
                connection,
                term_ids: HashMap::new(),
            }),
            reader: Mutex::new(Reader {
                connection: reader,
                cache: TermCache::default(),
            }),
            telemetry_path: telemetry_path(path),
            telemetry: Mutex::new(None),
            counters: Counters::default(),
        })
    }

    fn reader(&self) -> MutexGuard<'_, Reader> {
        self.reader
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts a read transaction on the reader's `connection` and empties `cache` when another
    /// connection has committed since the cache was filled.
    fn begin_read<'a>(
        &self,
        connection: &'a Connection,
        cache: &mut TermCache,
    ) -> Result<rusqlite::Transaction<'a>, HistoryError> {
        let transaction = rusqlite::Transaction::new_unchecked(
            connection,
            rusqlite::TransactionBehavior::Deferred,
        )?;
        if cache.validate(data_version(&transaction)?) {
            self.count(&self.counters.term_cache_resets, 1);
        }
        Ok(transaction)
    }

    fn count(&self, counter: &AtomicU64, value: u64) {
        counter.fetch_add(value, Ordering::Relaxed);
    }
}

/// The telemetry file next to the index: `index.sqlite` → `index.telemetry.sqlite`.
fn telemetry_path(index: &Path) -> PathBuf {
    index.with_extension("telemetry.sqlite")
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
        owner: row.get(13)?,
    })
}

impl HistoryBackend for EmbeddedBackend {
    fn name(&self) -> &'static str {
        "embedded"
    }

    fn ping(&self) -> Result<(), HistoryError> {
        self.reader()
            .connection
            .query_row("SELECT 1", [], |row| row.get::<_, i64>(0))?;
        Ok(())
    }

    fn file_states(&self) -> Result<HashMap<String, FileState>, HistoryError> {
        let reader = self.reader();
        let mut select = reader.connection.prepare_cached(
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
        let mut select = reader.connection.prepare_cached(
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

    fn delete_session(&self, session_id: &str) -> Result<u64, HistoryError> {
        let mut writer = self
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let result = writer.delete_session(session_id);
        if result.is_err() {
            writer.term_ids.clear();
        }
        result
    }

    fn corpus_stats(&self, terms: &[String], owner: &str) -> Result<CorpusStats, HistoryError> {
        let mut guard = self.reader();
        let reader = &mut *guard;
        let (mut statements, mut misses) = (1u64, 0u64);
        // One read transaction: the statistics come from one committed state.
        let transaction = self.begin_read(&reader.connection, &mut reader.cache)?;
        let (docs, total_len) = match reader.cache.corpus {
            Some(corpus) => corpus,
            None => {
                statements += 1;
                let corpus: Option<(i64, i64)> = transaction
                    .prepare_cached("SELECT docs, total_len FROM corpus WHERE id = 0")?
                    .query_row([], |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()?;
                let corpus = match corpus {
                    Some(corpus) if corpus.0 > 0 => corpus,
                    // No statistics row: aggregate over the base data.
                    _ => {
                        statements += 1;
                        transaction.query_row(
                            "SELECT count(*), coalesce(sum(dl), 0) FROM events",
                            [],
                            |row| Ok((row.get(0)?, row.get(1)?)),
                        )?
                    }
                };
                reader.cache.corpus = Some(corpus);
                corpus
            }
        };
        statements += 1;
        let owner_docs: i64 = transaction
            .prepare_cached("SELECT docs FROM owners WHERE owner = ?1")?
            .query_row([owner], |row| row.get(0))
            .optional()?
            .unwrap_or(0);
        let mut df = Vec::with_capacity(terms.len());
        for term in terms {
            let entry = reader
                .cache
                .entry(&transaction, term, &mut statements, &mut misses)?;
            df.push(entry.df);
        }
        transaction.commit()?;
        self.count(&self.counters.statements, statements);
        self.count(&self.counters.term_cache_misses, misses);
        self.count(
            &self.counters.term_cache_hits,
            (terms.len() as u64).saturating_sub(misses),
        );
        let avg_len = if docs > 0 {
            total_len as f64 / docs as f64
        } else {
            1.0
        };
        Ok(CorpusStats {
            docs,
            owner_docs,
            avg_len: avg_len.max(1.0),
            df,
        })
    }

    fn search(&self, plan: &SearchPlan) -> Result<Vec<ScoredDoc>, HistoryError> {
        let mut guard = self.reader();
        let reader = &mut *guard;
        let (mut statements, mut misses) = (1u64, 0u64);
        // One read transaction: every list comes from the same committed state.
        let transaction = self.begin_read(&reader.connection, &mut reader.cache)?;
        let mut lists = Vec::with_capacity(plan.terms.len());
        // Term ids by query position, for loading postings on demand.
        let mut tids = vec![0i64; plan.terms.len()];
        for (position, (term, idf)) in plan.terms.iter().zip(&plan.idf).enumerate() {
            let cache = &mut reader.cache;
            let entry = cache.entry(&transaction, term, &mut statements, &mut misses)?;
            let Some(tid) = entry.tid else {
                continue;
            };
            tids[position] = tid;
            let mut grown = 0;
            let blocks = match &entry.blocks {
                Some(blocks) => Arc::clone(blocks),
                None => {
                    statements += 1;
                    let blocks = Arc::new(postings::read_blocks(&transaction, tid)?);
                    grown += blocks.bytes();
                    entry.blocks = Some(Arc::clone(&blocks));
                    blocks
                }
            };
            let key = [
                idf.to_bits(),
                plan.k1.to_bits(),
                plan.b.to_bits(),
                plan.avg_len.to_bits(),
            ];
            let bounds = match &entry.bounds {
                Some((cached, bounds)) if *cached == key => Arc::clone(bounds),
                _ => {
                    let bounds: Arc<[f64]> = block_bounds(plan, *idf, &blocks).into();
                    if entry.bounds.is_none() {
                        grown += bounds.len() * 8;
                    }
                    entry.bounds = Some((key, Arc::clone(&bounds)));
                    bounds
                }
            };
            if grown > 0 {
                cache.grew(term, grown);
            }
            lists.push(TermList {
                position,
                idf: *idf,
                blocks,
                bounds,
            });
        }
        let kinds = plan
            .kinds
            .iter()
            .filter(|kind| (0..64).contains(*kind))
            .fold(0u64, |bits, kind| bits | (1u64 << kind));
        let docs = match &plan.session_id {
            Some(session_id) => {
                statements += 1;
                let mut select = transaction
                    .prepare_cached("SELECT n FROM events WHERE session_id = ?1 AND owner = ?2")?;
                let docs: HashSet<i64> = select
                    .query_map([session_id, &plan.owner], |row| row.get(0))?
                    .collect::<Result<_, _>>()?;
                Some(docs)
            }
            None => None,
        };
        let filter = Filter { kinds, docs };
        // Another principal's events are dropped as the ranking meets them, before they can
        // take a place in the top k (and raise its threshold). When every event is the
        // asker's, as on a single-user home, nothing needs dropping and the lookup stays the
        // plain one.
        statements += 1;
        let others: bool = transaction
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM owners WHERE owner != ?1 AND docs > 0)")?
            .query_row([&plan.owner], |row| row.get(0))?;
        let owner_filter = others.then_some(plan.owner.as_str());
        let mut hash = transaction.prepare_cached("SELECT doc FROM events WHERE n = ?1")?;
        let mut owned_hash =
            transaction.prepare_cached("SELECT doc FROM events WHERE n = ?1 AND owner = ?2")?;
        let mut failure = None;
        let mut load_failure = None;
        let mut stats = TopKStats::default();
        let (mut lookups, mut block_hits) = (0u64, 0u64);
        let cache = &mut reader.cache;
        let block_counts: Vec<usize> = {
            let mut counts = vec![0; plan.terms.len()];
            for list in &lists {
                counts[list.position] = list.blocks.len();
            }
            counts
        };
        let ranked = top_k(
            plan,
            lists,
            &filter,
            |n| {
                lookups += 1;
                let doc = match owner_filter {
                    None => hash.query_row([n], |row| row.get::<_, i64>(0)),
                    Some(owner) => owned_hash.query_row(params![n, owner], |row| row.get(0)),
                };
                match doc.optional() {
                    Ok(doc) => doc,
                    Err(error) => {
                        failure = Some(HistoryError::from(error));
                        None
                    }
                }
            },
            &mut |position, index, first| {
                let tid = tids.get(position).copied().unwrap_or(0);
                let term = plan.terms.get(position).map_or("", String::as_str);
                let blocks = block_counts.get(position).copied().unwrap_or(0);
                match cache.block_data(term, index, blocks, || {
                    postings::read_data(&transaction, tid, first)
                }) {
                    Ok((data, cached)) => {
                        block_hits += u64::from(cached);
                        data
                    }
                    Err(error) => {
                        load_failure = Some(error);
                        Arc::from(Vec::new())
                    }
                }
            },
            &mut stats,
        );
        drop(hash);
        drop(owned_hash);
        statements += lookups + stats.blocks_decoded - block_hits;
        self.count(&self.counters.block_cache_hits, block_hits);
        self.count(&self.counters.searches, 1);
        self.count(&self.counters.statements, statements);
        self.count(&self.counters.blocks_decoded, stats.blocks_decoded);
        self.count(&self.counters.blocks_skipped, stats.blocks_skipped);
        self.count(&self.counters.candidates_scored, stats.candidates_scored);
        self.count(&self.counters.term_cache_misses, misses);
        self.count(
            &self.counters.term_cache_hits,
            (plan.terms.len() as u64).saturating_sub(misses),
        );
        if let Some(error) = load_failure {
            return Err(error);
        }
        transaction.commit()?;
        match failure {
            Some(error) => Err(error),
            None => Ok(ranked),
        }
    }

    fn hit_events(&self, docs: &[i64]) -> Result<Vec<HitEvent>, HistoryError> {
        let reader = self.reader();
        self.count(&self.counters.statements, docs.len() as u64);
        // Only the columns a hit shows: the payload (after `text` in the row) is never read.
        let mut select = reader.connection.prepare_cached(
            "SELECT doc, event_uid, session_id, event_order, turn_seq, turn_id, ts_ms, class, text
             FROM events WHERE doc = ?1",
        )?;
        let mut events = Vec::with_capacity(docs.len());
        for doc in docs {
            let event = select
                .query_row([doc], |row| {
                    let class: String = row.get(7)?;
                    Ok(HitEvent {
                        doc: row.get(0)?,
                        event_uid: row.get(1)?,
                        session_id: row.get(2)?,
                        event_order: row.get(3)?,
                        turn_seq: row.get(4)?,
                        turn_id: row.get(5)?,
                        timestamp_ms: row.get(6)?,
                        class: EventClass::parse(&class).unwrap_or(EventClass::Error),
                        text: row.get(8)?,
                    })
                })
                .optional()?;
            events.extend(event);
        }
        Ok(events)
    }

    fn event_by_uid(&self, event_uid: &str, owner: &str) -> Result<Option<Event>, HistoryError> {
        let reader = self.reader();
        let mut select = reader.connection.prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE doc = ?1 AND event_uid = ?2 AND owner = ?3"
        ))?;
        Ok(select
            .query_row(params![doc_id(event_uid), event_uid, owner], event_from_row)
            .optional()?)
    }

    fn window(
        &self,
        session_id: &str,
        owner: &str,
        event_order: i64,
        before: i64,
        after: i64,
    ) -> Result<Vec<Event>, HistoryError> {
        let reader = self.reader();
        let mut earlier = reader.connection.prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE session_id = ?1 AND owner = ?2
             AND event_order < ?3 ORDER BY event_order DESC LIMIT ?4"
        ))?;
        let mut events: Vec<Event> = earlier
            .query_map(
                params![session_id, owner, event_order, before],
                event_from_row,
            )?
            .collect::<Result<_, _>>()?;
        events.reverse();
        let mut later = reader.connection.prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE session_id = ?1 AND owner = ?2
             AND event_order >= ?3 ORDER BY event_order ASC LIMIT ?4"
        ))?;
        let rest: Vec<Event> = later
            .query_map(
                params![session_id, owner, event_order, after + 1],
                event_from_row,
            )?
            .collect::<Result<_, _>>()?;
        events.extend(rest);
        Ok(events)
    }

    fn log_queries(&self, logs: &[QueryLog]) -> Result<(), HistoryError> {
        let mut telemetry = self
            .telemetry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let connection = match telemetry.as_mut() {
            Some(connection) => connection,
            None => {
                let connection = Connection::open(&self.telemetry_path)?;
                connection.busy_timeout(std::time::Duration::from_secs(10))?;
                connection.pragma_update(None, "journal_mode", "WAL")?;
                connection.pragma_update(None, "synchronous", "NORMAL")?;
                connection.execute_batch(TELEMETRY_SCHEMA)?;
                telemetry.insert(connection)
            }
        };
        let transaction = connection.transaction()?;
        {
            let mut query = transaction.prepare_cached(
                "INSERT INTO query_log (query_id, at_ms, query, terms, hits, elapsed_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            let mut hit = transaction.prepare_cached(
                "INSERT INTO hit_log (query_id, rank, event_uid, score) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for log in logs {
                query.execute(params![
                    log.query_id,
                    log.at_ms,
                    log.query,
                    log.terms.join(" "),
                    log.hits.len() as i64,
                    log.elapsed_us
                ])?;
                for (rank, event_uid, score) in &log.hits {
                    hit.execute(params![log.query_id, rank, event_uid, score])?;
                }
            }
        }
        transaction.commit()?;
        Ok(())
    }

    fn event_count(&self) -> Result<i64, HistoryError> {
        Ok(self
            .reader()
            .connection
            .query_row("SELECT count(*) FROM events", [], |row| row.get(0))?)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let counters = &self.counters;
        [
            ("searches", &counters.searches),
            ("statements", &counters.statements),
            ("blocks decoded", &counters.blocks_decoded),
            ("blocks skipped", &counters.blocks_skipped),
            ("candidates scored", &counters.candidates_scored),
            ("term cache hits", &counters.term_cache_hits),
            ("term cache misses", &counters.term_cache_misses),
            ("term cache resets", &counters.term_cache_resets),
            ("block cache hits", &counters.block_cache_hits),
        ]
        .into_iter()
        .map(|(name, counter)| (name, counter.load(Ordering::Relaxed)))
        .collect()
    }
}

#[cfg(test)]
mod tests;
