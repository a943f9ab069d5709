//! The embedded backend's tests against a real SQLite file: the term cache's invalidation and
//! the ingest's prepared statements.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use super::*;
use crate::backend::{FileUpdate, idf};
use crate::event::event_uid;

fn event(order: i64, text: &str) -> Event {
    let uid = event_uid("s1", order);
    Event {
        doc: doc_id(&uid),
        event_uid: uid,
        session_id: "s1".to_string(),
        owner: crate::event::LOCAL_OWNER.to_string(),
        event_order: order,
        turn_seq: 1,
        turn_id: "t".to_string(),
        timestamp_ms: 0,
        class: EventClass::AgentMessage,
        history_tool: false,
        text: text.to_string(),
        payload: "{}".to_string(),
        token_usage: "null".to_string(),
        source_path: "/f".to_string(),
    }
}

fn batch(events: Vec<Event>, offset: u64) -> Batch {
    Batch {
        files: vec![FileUpdate {
            path: "/f".to_string(),
            reset: false,
            state: FileState {
                inode: 1,
                offset,
                fingerprint: "f".to_string(),
                cursor: Cursor::default(),
                corrupt_lines: 0,
            },
        }],
        events,
    }
}

/// The uids `backend` finds for `term`, best first.
fn search(backend: &EmbeddedBackend, term: &str) -> Vec<String> {
    let terms = vec![term.to_string()];
    let stats = backend
        .corpus_stats(&terms, crate::event::LOCAL_OWNER)
        .unwrap();
    let plan = SearchPlan {
        idf: stats.df.iter().map(|df| idf(stats.docs, *df)).collect(),
        df: stats.df.clone(),
        terms,
        k1: 1.2,
        b: 0.75,
        avg_len: stats.avg_len,
        min_should_match: 1,
        min_score: None,
        kinds: EventClass::ALL.iter().map(|class| class.code()).collect(),
        session_id: None,
        owner: crate::event::LOCAL_OWNER.to_string(),
        limit: 10,
    };
    let docs: Vec<i64> = backend
        .search(&plan)
        .unwrap()
        .iter()
        .map(|hit| hit.doc)
        .collect();
    let events = backend.hit_events(&docs).unwrap();
    docs.iter()
        .filter_map(|doc| events.iter().find(|event| event.doc == *doc))
        .map(|event| event.event_uid.clone())
        .collect()
}

fn counter(backend: &EmbeddedBackend, name: &str) -> u64 {
    backend
        .counters()
        .into_iter()
        .find(|(counter, _)| *counter == name)
        .map_or(0, |(_, value)| value)
}

/// The term cache serves repeated searches, and a commit (by this backend's writer or by
/// another connection, as another process would) makes the next search see the new
/// events.
#[test]
fn a_search_after_an_ingest_sees_the_new_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let backend = EmbeddedBackend::open(&path).unwrap();
    backend
        .commit(&batch(vec![event(0, "linker error"), event(1, "other")], 1))
        .unwrap();
    assert_eq!(search(&backend, "linker"), ["s1:0"]);
    let misses = counter(&backend, "term cache misses");
    let block_hits = counter(&backend, "block cache hits");
    assert_eq!(search(&backend, "linker"), ["s1:0"]);
    assert_eq!(counter(&backend, "term cache misses"), misses, "cached");
    assert!(
        counter(&backend, "block cache hits") > block_hits,
        "postings cached"
    );

    // This process's ingest.
    backend
        .commit(&batch(vec![event(2, "linker linker linker")], 2))
        .unwrap();
    assert_eq!(search(&backend, "linker"), ["s1:2", "s1:0"]);

    // Another connection (another process): a second backend on the same file.
    let other = EmbeddedBackend::open(&path).unwrap();
    other
        .commit(&batch(vec![event(3, "linker linker linker linker")], 3))
        .unwrap();
    assert_eq!(search(&backend, "linker"), ["s1:3", "s1:2", "s1:0"]);
    assert!(counter(&backend, "term cache resets") >= 2);
}

/// Writing the query log does not empty the term cache (it is another file).
#[test]
fn query_logs_leave_the_term_cache_alone() {
    let dir = tempfile::tempdir().unwrap();
    let backend = EmbeddedBackend::open(&dir.path().join("index.sqlite")).unwrap();
    backend
        .commit(&batch(vec![event(0, "linker error")], 1))
        .unwrap();
    assert_eq!(search(&backend, "linker"), ["s1:0"]);
    let log = QueryLog {
        query_id: "q".to_string(),
        at_ms: 0,
        query: "linker".to_string(),
        terms: vec!["linker".to_string()],
        elapsed_us: 1,
        hits: vec![(1, "s1:0".to_string(), 1.0)],
    };
    backend.log_queries(&[log.clone(), log]).unwrap();
    let resets = counter(&backend, "term cache resets");
    let misses = counter(&backend, "term cache misses");
    assert_eq!(search(&backend, "linker"), ["s1:0"]);
    assert_eq!(counter(&backend, "term cache resets"), resets);
    assert_eq!(counter(&backend, "term cache misses"), misses);
    let telemetry = Connection::open(dir.path().join("index.telemetry.sqlite")).unwrap();
    let rows: i64 = telemetry
        .query_row("SELECT count(*) FROM hit_log", [], |row| row.get(0))
        .unwrap();
    assert_eq!(rows, 2);
}

/// An ingest's per-term statements are compiled once per connection, not once per use:
/// without the fixed plans, SQLite re-prepared the tail-block lookup for every term.
#[test]
fn ingest_statements_are_not_reprepared() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    EmbeddedBackend::open(&path)
        .unwrap()
        .commit(&batch(vec![event(0, "alpha beta gamma delta")], 1))
        .unwrap();
    // A new process: the terms exist, so each one's last block is looked up.
    let backend = EmbeddedBackend::open(&path).unwrap();
    backend
        .commit(&batch(vec![event(1, "alpha beta gamma delta epsilon")], 2))
        .unwrap();
    backend
        .commit(&batch(vec![event(2, "alpha beta gamma delta zeta")], 3))
        .unwrap();
    let writer = backend.writer.lock().unwrap();
    let tail = writer
        .connection
        .prepare_cached(postings::TAIL_BLOCK)
        .unwrap();
    assert!(tail.get_status(rusqlite::StatementStatus::Run) >= 8);
    assert_eq!(tail.get_status(rusqlite::StatementStatus::RePrepare), 0);
}
