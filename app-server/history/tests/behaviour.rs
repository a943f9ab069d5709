//! One behaviour suite, run against both backends: the embedded SQLite index and a real
//! ClickHouse server started by the harness.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod support;

use serde_json::{Value, json};
use tandem_history::config::{BackendKind, HistoryConfig};
use tandem_history::event::LOCAL_OWNER;
use tandem_history::service::HistoryService;

use support::{ClickHouse, RolloutWriter};

struct Fixture {
    home: tempfile::TempDir,
    service: HistoryService,
    clickhouse: Option<ClickHouse>,
}

impl Fixture {
    fn new(backend: BackendKind) -> Fixture {
        let home = tempfile::tempdir().expect("home");
        let mut config = HistoryConfig::defaults(home.path());
        config.backend = backend;
        let clickhouse = match backend {
            BackendKind::ClickHouse => {
                let server = ClickHouse::start();
                config.clickhouse.url = server.url();
                config.clickhouse.database = "history_test".to_string();
                Some(server)
            }
            BackendKind::Embedded => None,
        };
        let service = HistoryService::connect(config).expect("connect");
        Fixture {
            home,
            service,
            clickhouse,
        }
    }

    fn sessions(&self) -> std::path::PathBuf {
        self.home.path().join("sessions")
    }

    /// A corpus of three sessions.
    fn seed(&self) {
        let mut first = RolloutWriter::create(&self.sessions(), "sess-alpha");
        first.turn(
            "why does cargo build fail on the linker",
            "The linker error comes from a missing libssl; install libssl-dev.",
            Some((
                "cargo build --release",
                "error: linking with cc failed: undefined reference to SSL_new",
            )),
        );
        first.turn(
            "now run the tests",
            "All 42 tests passed.",
            Some(("cargo test", "test result: ok. 42 passed")),
        );
        let mut second = RolloutWriter::create(&self.sessions(), "sess-beta");
        second.turn(
            "configure the nginx reverse proxy for websockets",
            "Add proxy_set_header Upgrade and Connection headers to the location block.",
            None,
        );
        second.turn(
            "what about timeouts",
            "Raise proxy_read_timeout to 3600s for websockets.",
            None,
        );
        let mut third = RolloutWriter::create(&self.sessions(), "sess-gamma");
        third.turn(
            "rename the function parse_config to load_config",
            "Renamed parse_config to load_config in three files.",
            Some((
                "grep -rn parse_config src",
                "src/main.rs:12: parse_config(&path)",
            )),
        );
        let report = self.service.ingest().expect("ingest");
        assert_eq!(report.files_read, 3);
    }

    /// Calls `tool` as the local user.
    fn call(&self, tool: &str, arguments: Value) -> Value {
        self.call_as(LOCAL_OWNER, tool, arguments)
    }

    fn call_as(&self, owner: &str, tool: &str, arguments: Value) -> Value {
        self.service
            .call_tool(tool, Some(&arguments), owner)
            .expect("our tool")
            .expect("decodable arguments")
    }

    fn search_full(&self, arguments: Value) -> Value {
        self.search_full_as(LOCAL_OWNER, arguments)
    }

    fn search_full_as(&self, owner: &str, mut arguments: Value) -> Value {
        arguments["verbosity"] = json!("full");
        let result = self.call_as(owner, "search", arguments);
        assert_eq!(result["isError"], false, "{result}");
        result["structuredContent"].clone()
    }
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn uids(payload: &Value) -> Vec<String> {
    payload["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|hit| hit["event_uid"].as_str().unwrap_or("").to_string())
        .collect()
}

fn search_finds_and_open_reconstructs_the_window(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let payload = fixture.search_full(json!({"query": "linker libssl"}));
    let hits = payload["hits"].as_array().expect("hits");
    assert!(!hits.is_empty());
    assert_eq!(hits[0]["session_id"], "sess-alpha");
    assert_eq!(hits[0]["class"], "agent_message");
    assert_eq!(hits[0]["matched_terms"], 2);
    assert_eq!(payload["terms"], json!(["linker", "libssl"]));
    let uid = hits[0]["event_uid"].as_str().expect("uid").to_string();

    let open = fixture.call(
        "open",
        json!({"event_uid": uid, "before": 2, "after": 1, "verbosity": "full"}),
    );
    let window = &open["structuredContent"];
    assert_eq!(window["found"], true);
    let positions: Vec<&str> = window["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|event| event["position"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(positions, vec!["before", "before", "target", "after"]);
    let orders: Vec<i64> = window["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|event| event["event_order"].as_i64().unwrap_or(-1))
        .collect();
    let target = window["event_order"].as_i64().expect("order");
    assert_eq!(orders, vec![target - 2, target - 1, target, target + 1]);
    assert_eq!(
        window["events"][2]["payload"]["item"]["type"],
        "agentMessage"
    );
    assert_eq!(
        window["events"][3]["token_usage"]["total"]["totalTokens"],
        10
    );

    let prose = fixture.call("open", json!({"event_uid": uid}));
    assert_eq!(prose["isError"], false);
    assert!(prose.get("structuredContent").is_none());
    let text = text_of(&prose);
    assert!(
        text.contains("--- before ---") && text.contains("--- target ---"),
        "{text}"
    );
}

fn prose_suggests_open_for_each_hit(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let result = fixture.call("search", json!({"query": "websockets proxy"}));
    assert_eq!(result["isError"], false);
    assert!(result.get("structuredContent").is_none());
    let text = text_of(&result);
    assert!(text.contains("open(event_uid=\"sess-beta:"), "{text}");
    assert!(text.contains("hits in"), "{text}");
}

fn command_events_hold_command_and_output(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let payload = fixture.search_full(json!({"query": "SSL_new undefined reference"}));
    assert_eq!(payload["hits"][0]["class"], "command");
    assert!(
        payload["hits"][0]["snippet"]
            .as_str()
            .unwrap_or("")
            .contains("undefined reference")
    );
}

fn tool_events_only_on_request(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let without = fixture.search_full(json!({"query": "exec_command"}));
    assert_eq!(without["hits"], json!([]));
    let with = fixture.search_full(json!({"query": "exec_command", "include_tool_events": true}));
    assert_eq!(with["hits"].as_array().map(Vec::len), Some(3));
    assert!(
        with["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|hit| hit["class"] == "tool_call")
    );
}

fn history_tool_calls_are_excluded_by_default(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    let mut writer = RolloutWriter::create(&fixture.sessions(), "sess-meta");
    writer.line("turn_started", json!({"turn_id": "t1"}));
    writer.line(
        "item",
        json!({"turn_id": "t1", "item": {"type": "mcpToolCall", "id": "m", "server": "history", "tool": "search", "arguments": {"query": "flamingo"}, "result": null}}),
    );
    writer.line(
        "item",
        json!({"turn_id": "t1", "item": {"type": "mcpToolCall", "id": "n", "server": "zoo", "tool": "lookup", "arguments": {"query": "flamingo"}, "result": null}}),
    );
    fixture.service.ingest().expect("ingest");
    let default = fixture.search_full(json!({"query": "flamingo", "include_tool_events": true}));
    assert_eq!(uids(&default), vec!["sess-meta:1"]);
    let all = fixture.search_full(
        json!({"query": "flamingo", "include_tool_events": true, "exclude_codex_mcp": false}),
    );
    assert_eq!(all["hits"].as_array().map(Vec::len), Some(2));
}

fn incremental_ingest_reads_only_new_lines(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    let mut writer = RolloutWriter::create(&fixture.sessions(), "sess-inc");
    writer.turn("first question about kubernetes", "answer one", None);
    let first = fixture.service.ingest().expect("ingest");
    assert_eq!((first.files_read, first.events), (1, 2));
    let again = fixture.service.ingest().expect("ingest");
    assert_eq!((again.files_read, again.events), (0, 0));
    writer.turn("second question about helm charts", "answer two", None);
    let more = fixture.service.ingest().expect("ingest");
    assert_eq!((more.files_read, more.files_reset, more.events), (1, 0, 2));
    let payload = fixture.search_full(json!({"query": "helm"}));
    assert_eq!(uids(&payload), vec!["sess-inc:2"]);
    assert_eq!(payload["hits"][0]["turn_seq"], 2);
    assert_eq!(payload["corpus_events"], 4);
}

fn rewritten_file_is_read_again(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    let mut writer = RolloutWriter::create(&fixture.sessions(), "sess-rw");
    writer.turn("talk about pelicans", "pelicans are birds", None);
    writer.turn("and more pelicans", "still pelicans", None);
    fixture.service.ingest().expect("ingest");
    let path = writer.path.clone();
    drop(writer);
    // Truncate and rewrite in place with other content: same inode, smaller size.
    let mut writer = RolloutWriter::create(&fixture.sessions(), "sess-rw");
    writer.turn("talk about otters", "otters swim", None);
    assert_eq!(writer.path, path);
    let report = fixture.service.ingest().expect("ingest");
    assert_eq!((report.files_reset, report.events), (1, 2));
    wait_for_deletes(&fixture, "pelicans");
    assert_eq!(
        fixture.search_full(json!({"query": "pelicans"}))["hits"],
        json!([])
    );
    let mut otters = uids(&fixture.search_full(json!({"query": "otters"})));
    otters.sort();
    assert_eq!(otters, vec!["sess-rw:0", "sess-rw:1"]);
    assert_eq!(
        fixture.search_full(json!({"query": "otters"}))["corpus_events"],
        2
    );
}

fn deleted_session_is_neither_found_nor_opened(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let before = fixture.search_full(json!({"query": "linker libssl"}));
    assert_eq!(before["hits"][0]["session_id"], "sess-alpha", "{before}");
    let corpus_before = before["corpus_events"].as_i64().expect("corpus_events");
    let opened = fixture.call(
        "open",
        json!({"event_uid": "sess-alpha:1", "verbosity": "full"}),
    );
    assert_eq!(opened["structuredContent"]["found"], true, "{opened}");

    // The thread's rollout goes first, then its events.
    std::fs::remove_file(fixture.sessions().join("rollout-sess-alpha.jsonl")).expect("rm");
    let removed = fixture
        .service
        .delete_session("sess-alpha")
        .expect("delete");
    assert!(removed > 0, "{removed}");
    wait_for_deletes(&fixture, "linker");

    assert_eq!(
        fixture.search_full(json!({"query": "linker libssl"}))["hits"],
        json!([])
    );
    let opened = fixture.call(
        "open",
        json!({"event_uid": "sess-alpha:1", "verbosity": "full"}),
    );
    assert_eq!(opened["structuredContent"]["found"], false, "{opened}");
    let beta = fixture.search_full(json!({"query": "nginx websockets"}));
    assert_eq!(beta["hits"][0]["session_id"], "sess-beta", "{beta}");
    assert_eq!(
        beta["corpus_events"].as_i64(),
        Some(corpus_before - removed as i64)
    );
    // Nothing of it comes back with the next ingest, and a second delete finds nothing.
    let report = fixture.service.ingest().expect("ingest");
    assert_eq!(report.events, 0);
    assert_eq!(
        fixture.service.delete_session("sess-alpha").expect("again"),
        0
    );
}

/// ClickHouse applies `ALTER TABLE … DELETE` asynchronously; wait until the mutation ran.
fn wait_for_deletes(fixture: &Fixture, term: &str) {
    if fixture.clickhouse.is_none() {
        return;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !fixture.search_full(json!({"query": term}))["hits"]
        .as_array()
        .is_some_and(Vec::is_empty)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "delete mutation did not finish"
        );
        std::thread::park_timeout(std::time::Duration::from_millis(50));
    }
}

fn corrupt_line_is_skipped_and_counted(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    let mut writer = RolloutWriter::create(&fixture.sessions(), "sess-bad");
    writer.turn("before the corruption zebra", "ok", None);
    writer.raw("{\"timestamp\": \"2026-01-01T00:00:00Z\", \"type\": \"item\", \"payload\": {trunc");
    writer.turn("after the corruption giraffe", "ok", None);
    let report = fixture.service.ingest().expect("ingest");
    assert_eq!(report.corrupt_lines, 1);
    assert_eq!(report.events, 4);
    assert_eq!(
        uids(&fixture.search_full(json!({"query": "giraffe"}))),
        vec!["sess-bad:2"]
    );
    assert_eq!(
        uids(&fixture.search_full(json!({"query": "zebra"}))),
        vec!["sess-bad:0"]
    );
}

fn codex_rollouts_are_searchable(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    let dir = fixture.sessions().join("2026/11/21");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/codex-rollout.jsonl"
        ),
        dir.join("rollout-codex.jsonl"),
    )
    .expect("copy");
    fixture.service.ingest().expect("ingest");
    let payload = fixture.search_full(json!({"query": "resume"}));
    assert_eq!(
        uids(&payload),
        vec!["01a1ffdd-bf21-7cd3-a055-888a65ab3622:2"]
    );
    assert_eq!(payload["hits"][0]["class"], "user_message");
    assert_eq!(payload["hits"][0]["turn_seq"], 2);
}

fn empty_and_whitespace_queries_are_errors(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    for query in ["", "   \n\t "] {
        let result = fixture.call("search", json!({"query": query}));
        assert_eq!(result["isError"], true);
        assert_eq!(text_of(&result), "query must not be empty");
    }
    // Only punctuation: valid, no terms, no hits.
    let result = fixture.search_full(json!({"query": "?!"}));
    assert_eq!(result["hits"], json!([]));
}

fn huge_queries_are_capped_and_answered(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let mut words: Vec<String> = vec!["websockets".to_string()];
    words.extend((0..10_000).map(|index| format!("word{index}")));
    let payload = fixture.search_full(json!({"query": words.join(" ")}));
    assert_eq!(payload["terms"].as_array().map(Vec::len), Some(32));
    assert_eq!(payload["dropped_terms"], 10_000 - 31);
    assert_eq!(payload["hits"][0]["session_id"], "sess-beta");
}

fn limits_are_clamped(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let negative = fixture.search_full(json!({"query": "cargo test tests", "limit": -5}));
    assert_eq!(negative["limit"], 1);
    assert_eq!(negative["hits"].as_array().map(Vec::len), Some(1));
    let huge = fixture.search_full(json!({"query": "cargo", "limit": 1_000_000_000i64}));
    assert_eq!(huge["limit"], 50);
    let msm = fixture.search_full(json!({"query": "cargo linker", "min_should_match": 99}));
    assert_eq!(msm["min_should_match"], 2);
    assert!(
        msm["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|hit| hit["matched_terms"] == 2)
    );
    let zero = fixture.search_full(json!({"query": "cargo linker", "min_should_match": -3}));
    assert_eq!(zero["min_should_match"], 1);
    let scored = fixture.search_full(json!({"query": "cargo", "min_score": 1000.0}));
    assert_eq!(scored["hits"], json!([]));
}

fn session_filter_is_validated_and_applied(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let long = "s".repeat(300);
    for bad in ["it's", "a b", "'; DROP TABLE events; --", long.as_str(), ""] {
        let result = fixture.call("search", json!({"query": "cargo", "session_id": bad}));
        assert_eq!(result["isError"], true, "{bad}");
        assert!(
            text_of(&result).starts_with("invalid session_id"),
            "{}",
            text_of(&result)
        );
    }
    let only =
        fixture.search_full(json!({"query": "parse_config cargo", "session_id": "sess-gamma"}));
    assert!(!uids(&only).is_empty());
    assert!(uids(&only).iter().all(|uid| uid.starts_with("sess-gamma:")));
    // The tables survived the attempted injection.
    assert!(!uids(&fixture.search_full(json!({"query": "cargo"}))).is_empty());
}

fn open_misses_and_bounds(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let missing = fixture.call(
        "open",
        json!({"event_uid": "sess-alpha:999", "verbosity": "full"}),
    );
    assert_eq!(missing["isError"], false);
    assert_eq!(
        missing["structuredContent"],
        json!({"found": false, "event_uid": "sess-alpha:999", "events": []})
    );
    let bad = fixture.call("open", json!({"event_uid": "x'; DROP TABLE events"}));
    assert_eq!(bad["isError"], true);
    let wide = fixture.call(
        "open",
        json!({"event_uid": "sess-alpha:3", "before": 1_000_000_000i64, "after": 1_000_000_000i64, "verbosity": "full"}),
    );
    assert_eq!(wide["structuredContent"]["before"], 50);
    let events = wide["structuredContent"]["events"]
        .as_array()
        .expect("events");
    assert_eq!(events.len(), 10, "the whole session");
    assert_eq!(events[0]["event_order"], 0);
}

fn undecodable_arguments_are_request_errors(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    for (tool, arguments) in [
        ("search", json!({})),
        ("search", json!({"query": 5})),
        ("search", json!({"query": "x", "limit": "ten"})),
        ("search", json!({"query": "x", "verbosity": "loud"})),
        ("search", json!({"query": "x", "unknown": 1})),
        ("open", json!({"event_uid": "a", "before": 1.5})),
        ("open", json!([1, 2])),
    ] {
        let outcome = fixture
            .service
            .call_tool(tool, Some(&arguments), LOCAL_OWNER)
            .expect("our tool");
        assert!(outcome.is_err(), "{tool} {arguments}");
    }
    assert!(
        fixture
            .service
            .call_tool("codex", None, LOCAL_OWNER)
            .is_none()
    );
}

/// The query and hit logs are written off the answer path, and all of them once the service
/// closes its telemetry queue.
fn query_logs_are_written_after_the_answer(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let mut hits = 0;
    for query in ["cargo", "websockets proxy", "no_such_term_anywhere"] {
        hits += uids(&fixture.search_full(json!({"query": query}))).len();
    }
    assert!(hits > 0);
    fixture.service.close_telemetry();
    let counters: std::collections::HashMap<_, _> =
        fixture.service.counters().into_iter().collect();
    assert_eq!(counters["telemetry written"], 3, "{counters:?}");
    assert_eq!(counters["telemetry dropped"], 0, "{counters:?}");
    let count = |table: &str| -> usize {
        match &fixture.clickhouse {
            Some(server) => reqwest::blocking::Client::new()
                .post(server.url())
                .body(format!("SELECT count() FROM history_test.{table}"))
                .send()
                .expect("clickhouse answers")
                .text()
                .expect("body")
                .trim()
                .parse()
                .expect("a count"),
            None => {
                let path = fixture
                    .service
                    .config()
                    .index_path
                    .with_extension("telemetry.sqlite");
                rusqlite::Connection::open(path)
                    .expect("telemetry file")
                    .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
                        row.get::<_, i64>(0)
                    })
                    .expect("count") as usize
            }
        }
    };
    assert_eq!(count("query_log"), 3);
    assert_eq!(count("hit_log"), hits);
}

/// Events belong to the principal whose thread wrote them (the rollout header's `owner`; the
/// local user's when it names none): each principal finds, counts and opens only its own, and
/// the filter applies while ranking, so a better hit of another principal never takes the
/// place of one's own.
fn each_principal_finds_and_opens_only_its_own_events(backend: BackendKind) {
    let fixture = Fixture::new(backend);
    fixture.seed();
    let mut alices = RolloutWriter::create_owned(&fixture.sessions(), "sess-alice", "alice");
    alices.turn(
        "the linker again",
        "Alice's note: pin the linker version.",
        None,
    );
    let mut bobs = RolloutWriter::create_owned(&fixture.sessions(), "sess-bob", "bob");
    bobs.turn(
        "linker linker linker",
        "The linker, the linker and the linker once more.",
        None,
    );
    fixture.service.ingest().expect("ingest");

    // Bob's and the local user's events score higher for `linker`; alice's one hit is hers.
    let everyone =
        |owner: &str| uids(&fixture.search_full_as(owner, json!({"query": "linker", "limit": 50})));
    let top = fixture.search_full_as("alice", json!({"query": "linker", "limit": 1}));
    assert_eq!(uids(&top), vec!["sess-alice:0".to_string()]);
    assert_eq!(top["corpus_events"], 2);
    assert_eq!(
        everyone("alice"),
        vec!["sess-alice:0".to_string(), "sess-alice:1".to_string()]
    );
    assert!(
        everyone("bob")
            .iter()
            .all(|uid| uid.starts_with("sess-bob:"))
    );
    let local = everyone(LOCAL_OWNER);
    assert!(!local.is_empty());
    assert!(
        local.iter().all(|uid| uid.starts_with("sess-alpha:")),
        "{local:?}"
    );
    assert_eq!(everyone("carol"), Vec::<String>::new());

    // A session filter naming another's session finds nothing.
    let filtered = fixture.search_full_as(
        "bob",
        json!({"query": "linker", "session_id": "sess-alice"}),
    );
    assert_eq!(uids(&filtered), Vec::<String>::new());

    // Opening another's event is a miss, exactly as for an event that does not exist.
    let open = |owner: &str, uid: &str| {
        fixture.call_as(
            owner,
            "open",
            json!({"event_uid": uid, "verbosity": "full"}),
        )
    };
    assert_eq!(
        open("bob", "sess-alice:1")["structuredContent"],
        json!({"found": false, "event_uid": "sess-alice:1", "events": []})
    );
    let own = open("alice", "sess-alice:1");
    assert_eq!(own["structuredContent"]["found"], true);
    let window = own["structuredContent"]["events"]
        .as_array()
        .expect("events");
    assert_eq!(window.len(), 2);
}

macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {
        mod embedded {
            $(#[test] fn $name() { super::$name(tandem_history::config::BackendKind::Embedded) })*
        }
        mod clickhouse {
            $(#[test] fn $name() { super::$name(tandem_history::config::BackendKind::ClickHouse) })*
        }
    };
}

both_backends!(
    search_finds_and_open_reconstructs_the_window,
    prose_suggests_open_for_each_hit,
    command_events_hold_command_and_output,
    tool_events_only_on_request,
    history_tool_calls_are_excluded_by_default,
    incremental_ingest_reads_only_new_lines,
    rewritten_file_is_read_again,
    corrupt_line_is_skipped_and_counted,
    codex_rollouts_are_searchable,
    empty_and_whitespace_queries_are_errors,
    huge_queries_are_capped_and_answered,
    limits_are_clamped,
    session_filter_is_validated_and_applied,
    open_misses_and_bounds,
    undecodable_arguments_are_request_errors,
    query_logs_are_written_after_the_answer,
    each_principal_finds_and_opens_only_its_own_events,
    deleted_session_is_neither_found_nor_opened,
);

#[test]
fn backends_rank_and_score_alike() {
    let embedded = Fixture::new(BackendKind::Embedded);
    embedded.seed();
    let clickhouse = Fixture::new(BackendKind::ClickHouse);
    // Same rollouts in the other home.
    for session in ["sess-alpha", "sess-beta", "sess-gamma"] {
        let name = format!("rollout-{session}.jsonl");
        std::fs::create_dir_all(clickhouse.sessions()).expect("mkdir");
        std::fs::copy(
            embedded.sessions().join(&name),
            clickhouse.sessions().join(&name),
        )
        .expect("copy");
    }
    clickhouse.service.ingest().expect("ingest");
    // Small limits make the ClickHouse search restrict a multi-term query to the documents
    // that can reach the top k; the embedded top k is exact, so any loss shows.
    let queries = [
        "cargo",
        "cargo linker error",
        "websockets proxy timeout",
        "parse_config load_config",
        "tests passed",
        "cargo test passed build",
        "the linker proxy cargo",
    ];
    for (query, limit) in queries
        .iter()
        .flat_map(|query| [(*query, 10), (*query, 2), (*query, 1)])
    {
        let arguments = json!({"query": query, "include_tool_events": true, "limit": limit});
        let left = embedded.search_full(arguments.clone());
        let right = clickhouse.search_full(arguments);
        assert_eq!(uids(&left), uids(&right), "{query} limit {limit}");
        let scores = |payload: &Value| -> Vec<f64> {
            payload["hits"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|hit| hit["score"].as_f64().unwrap_or(0.0))
                .collect()
        };
        for (a, b) in scores(&left).iter().zip(scores(&right)) {
            assert!((a - b).abs() < 1e-3, "{query}: {a} vs {b}");
        }
    }
}

#[test]
fn clickhouse_down_mid_call_is_an_error_result_and_recovers() {
    let mut fixture = Fixture::new(BackendKind::ClickHouse);
    fixture.seed();
    assert!(!uids(&fixture.search_full(json!({"query": "cargo"}))).is_empty());
    fixture.clickhouse.as_mut().expect("server").stop();
    let down = fixture.call("search", json!({"query": "cargo"}));
    assert_eq!(down["isError"], true);
    assert!(text_of(&down).contains("clickhouse"), "{}", text_of(&down));
    let open_down = fixture.call(
        "open",
        json!({"event_uid": "sess-alpha:1", "verbosity": "full"}),
    );
    assert_eq!(open_down["isError"], true);
    fixture.clickhouse.as_mut().expect("server").resume();
    assert!(!uids(&fixture.search_full(json!({"query": "cargo"}))).is_empty());
}

/// A re-sent ingest batch can leave a posting twice (ClickHouse ingestion is at-least-once);
/// a one-term search still lists each event once.
#[test]
fn clickhouse_one_term_search_lists_a_twice_sent_posting_once() {
    let fixture = Fixture::new(BackendKind::ClickHouse);
    fixture.seed();
    let before = uids(&fixture.search_full(json!({"query": "websockets"})));
    assert!(!before.is_empty());
    let server = fixture.clickhouse.as_ref().expect("server");
    let response = reqwest::blocking::Client::new()
        .post(server.url())
        .body(
            "INSERT INTO history_test.postings SELECT * FROM history_test.postings WHERE term = 'websockets'",
        )
        .send()
        .expect("clickhouse answers");
    assert!(response.status().is_success());
    let after = uids(&fixture.search_full(json!({"query": "websockets"})));
    let mut distinct = after.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), after.len(), "{after:?}");
    let mut expected = before;
    expected.sort();
    assert_eq!(distinct, expected);
}

#[test]
fn unreachable_clickhouse_fails_fast_at_connect() {
    let home = tempfile::tempdir().expect("home");
    let mut config = HistoryConfig::defaults(home.path());
    config.backend = BackendKind::ClickHouse;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("port")
        .port();
    config.clickhouse.url = format!("http://127.0.0.1:{port}");
    let error = HistoryService::connect(config).expect_err("fails");
    assert!(error.to_string().contains("cannot reach"), "{error}");
}
