//! Indexes written by an earlier layout keep working after an upgrade: a ClickHouse database
//! from before `hit_rows` existed gets it filled when the backend connects, an embedded index
//! from before the blocks' score frontier gains the column in place, and indexes of both
//! backends from before events recorded their owner give every event to the local user.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

#[allow(dead_code, reason = "each test binary uses part of the support module")]
mod support;

use tandem_history::config::{BackendKind, HistoryConfig};
use tandem_history::event::LOCAL_OWNER;
use tandem_history::service::{HistoryService, SearchArgs, Verbosity};

use support::{ClickHouse, RolloutWriter};

fn search_args(query: &str) -> SearchArgs {
    SearchArgs {
        query: query.to_string(),
        limit: Some(10),
        min_score: None,
        min_should_match: None,
        session_id: None,
        include_tool_events: None,
        exclude_codex_mcp: None,
        verbosity: Verbosity::Full,
    }
}

/// Runs one statement over ClickHouse's HTTP interface.
fn clickhouse_sql(server: &ClickHouse, sql: &str) -> String {
    let response = reqwest::blocking::Client::new()
        .post(server.url())
        .body(sql.to_string())
        .send()
        .expect("clickhouse answers");
    assert!(response.status().is_success(), "{sql}");
    response.text().expect("body")
}

#[test]
fn clickhouse_database_without_hit_rows_is_filled_on_connect() {
    let server = ClickHouse::start();
    let home = tempfile::tempdir().expect("home");
    let config = service_config(&server, home.path());
    let mut rollout = RolloutWriter::create(&home.path().join("sessions"), "sess-old");
    rollout.turn("why does the linker fail", "The linker needs libssl.", None);
    rollout.turn("and the websocket proxy", "Set the Upgrade header.", None);
    let service = HistoryService::connect(config.clone()).expect("connect");
    assert_eq!(service.ingest().expect("ingest").events, 4);
    let before = service
        .search(&search_args("linker"), LOCAL_OWNER)
        .expect("search");
    assert_eq!(before.hits.len(), 2);
    drop(service);

    // The layout before hit rows: events, postings and statistics only.
    clickhouse_sql(&server, "DROP TABLE history_migration.hit_rows");
    let service = HistoryService::connect(config.clone()).expect("connect migrates");
    assert_eq!(
        clickhouse_sql(&server, "SELECT count() FROM history_migration.hit_rows").trim(),
        "4"
    );
    let after = service
        .search(&search_args("linker"), LOCAL_OWNER)
        .expect("search");
    assert_eq!(after.hits, before.hits);
    // A second connect finds the table and fills nothing twice.
    drop(service);
    let service = HistoryService::connect(config).expect("connect");
    assert_eq!(
        clickhouse_sql(&server, "SELECT count() FROM history_migration.hit_rows").trim(),
        "4"
    );
    drop(service);
}

fn service_config(server: &ClickHouse, home: &std::path::Path) -> HistoryConfig {
    let mut config = HistoryConfig::defaults(home);
    config.backend = BackendKind::ClickHouse;
    config.clickhouse.url = server.url();
    config.clickhouse.database = "history_migration".to_string();
    config
}

fn embedded_config(home: &std::path::Path) -> HistoryConfig {
    let mut config = HistoryConfig::defaults(home);
    config.sources = vec![home.join("sessions")];
    config
}

/// An embedded index of layout 2 (blocks without the score frontier column) is migrated in
/// place: nothing is re-read, searches answer as before, and later appends to the old blocks
/// rank exactly like a freshly built index.
#[test]
fn embedded_index_of_layout_2_is_migrated_in_place() {
    let home = tempfile::tempdir().expect("home");
    let config = embedded_config(home.path());
    let mut rollout = RolloutWriter::create(&home.path().join("sessions"), "sess-old");
    for turn in 0..40 {
        rollout.turn(
            &format!("why does the linker fail again {turn} linker linker"),
            &format!("The linker needs libssl {turn}; cargo build works after that."),
            Some(("cargo build", "error: linking with cc failed")),
        );
    }
    let service = HistoryService::connect(config.clone()).expect("connect");
    assert!(service.ingest().expect("ingest").events > 0);
    let before = service
        .search(&search_args("linker cargo"), LOCAL_OWNER)
        .expect("search");
    assert!(!before.hits.is_empty());
    drop(service);

    // Rewrite the blocks table as layout 2 had it.
    {
        let connection = rusqlite::Connection::open(&config.index_path).expect("open index");
        connection
            .execute_batch(
                "BEGIN;
                 CREATE TABLE blocks_v2 (
                     tid INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL,
                     count INTEGER NOT NULL, max_tf INTEGER NOT NULL, min_dl INTEGER NOT NULL,
                     data BLOB NOT NULL, PRIMARY KEY (tid, first)
                 ) WITHOUT ROWID;
                 INSERT INTO blocks_v2 SELECT tid, first, last, count, max_tf, min_dl, data FROM blocks;
                 DROP TABLE blocks;
                 ALTER TABLE blocks_v2 RENAME TO blocks;
                 PRAGMA user_version = 2;
                 COMMIT;",
            )
            .expect("layout 2");
    }

    let service = HistoryService::connect(config.clone()).expect("connect migrates");
    assert_eq!(service.ingest().expect("nothing new").events, 0);
    let migrated = service
        .search(&search_args("linker cargo"), LOCAL_OWNER)
        .expect("search");
    assert_eq!(migrated.hits, before.hits);
    {
        let connection = rusqlite::Connection::open(&config.index_path).expect("open index");
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .expect("version");
        assert_eq!(version, 4);
    }

    // New postings go into the old blocks; the ranking matches a fresh index of the same files.
    rollout.turn(
        "the linker linker linker fails with cargo on musl",
        "Use the musl-gcc linker.",
        None,
    );
    assert!(service.ingest().expect("ingest").events > 0);
    let fresh_home = tempfile::tempdir().expect("fresh home");
    let fresh_sessions = fresh_home.path().join("sessions");
    std::fs::create_dir_all(&fresh_sessions).expect("mkdir");
    std::fs::copy(&rollout.path, fresh_sessions.join("rollout-sess-old.jsonl")).expect("copy");
    let fresh = HistoryService::connect(embedded_config(fresh_home.path())).expect("connect");
    fresh.ingest().expect("ingest");
    for query in ["linker cargo", "musl linker", "libssl"] {
        let upgraded = service
            .search(&search_args(query), LOCAL_OWNER)
            .expect("search");
        let rebuilt = fresh
            .search(&search_args(query), LOCAL_OWNER)
            .expect("search");
        assert_eq!(upgraded.hits, rebuilt.hits, "{query}");
    }
}

/// An embedded index of layout 3 (events without an owner) gains the column in place: every
/// event is the local user's, counted as such, and nothing is re-read.
#[test]
fn embedded_index_of_layout_3_gives_its_events_to_the_local_user() {
    let home = tempfile::tempdir().expect("home");
    let config = embedded_config(home.path());
    let mut rollout = RolloutWriter::create(&home.path().join("sessions"), "sess-old");
    rollout.turn("why does the linker fail", "The linker needs libssl.", None);
    let service = HistoryService::connect(config.clone()).expect("connect");
    assert_eq!(service.ingest().expect("ingest").events, 2);
    let before = service
        .search(&search_args("linker"), LOCAL_OWNER)
        .expect("search");
    drop(service);
    {
        let connection = rusqlite::Connection::open(&config.index_path).expect("open index");
        connection
            .execute_batch(
                "DROP TABLE owners;
                 ALTER TABLE events DROP COLUMN owner;
                 PRAGMA user_version = 3;",
            )
            .expect("layout 3");
    }
    let service = HistoryService::connect(config).expect("connect migrates");
    assert_eq!(service.ingest().expect("nothing new").events, 0);
    let after = service
        .search(&search_args("linker"), LOCAL_OWNER)
        .expect("search");
    assert_eq!(after.hits, before.hits);
    assert_eq!(after.corpus_events, 2);
    let other = service
        .search(&search_args("linker"), "alice")
        .expect("search");
    assert_eq!((other.hits.len(), other.corpus_events), (0, 0));
}

#[test]
fn clickhouse_database_without_owners_gives_its_events_to_the_local_user() {
    let server = ClickHouse::start();
    let home = tempfile::tempdir().expect("home");
    let mut config = service_config(&server, home.path());
    config.clickhouse.database = "history_owners".to_string();
    let mut rollout = RolloutWriter::create(&home.path().join("sessions"), "sess-old");
    rollout.turn("why does the linker fail", "The linker needs libssl.", None);
    let service = HistoryService::connect(config.clone()).expect("connect");
    assert_eq!(service.ingest().expect("ingest").events, 2);
    drop(service);
    for statement in [
        "ALTER TABLE history_owners.events DROP COLUMN owner",
        "ALTER TABLE history_owners.postings DROP COLUMN owner",
        "DROP TABLE history_owners.owner_docs",
    ] {
        clickhouse_sql(&server, statement);
    }
    let service = HistoryService::connect(config.clone()).expect("connect migrates");
    let after = service
        .search(&search_args("linker"), LOCAL_OWNER)
        .expect("search");
    assert_eq!(after.hits.len(), 2);
    assert_eq!(after.corpus_events, 2);
    let other = service
        .search(&search_args("linker"), "alice")
        .expect("search");
    assert_eq!((other.hits.len(), other.corpus_events), (0, 0));
    // A second connect adds nothing twice.
    drop(service);
    let service = HistoryService::connect(config).expect("connect");
    assert_eq!(
        service
            .search(&search_args("linker"), LOCAL_OWNER)
            .expect("search")
            .corpus_events,
        2
    );
}
