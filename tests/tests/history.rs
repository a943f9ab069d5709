//! Conversation history end to end with the real binary: a turn run through `tandem
//! mcp-server` becomes searchable (background ingest and `tandem history ingest`), the
//! history-only mode (`--tools search,open`), the CLI, fail-fast startup, and a `tandem
//! history ingest` killed with SIGKILL mid-run.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_history::config::HistoryConfig;
use tandem_history::event::LOCAL_OWNER;
use tandem_history::service::HistoryService;
use tandem_tests::mcp::McpStdio;
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config, tandem_binary};

fn history(home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(tandem_binary())
        .arg("history")
        .args(args)
        .env("TANDEM_HOME", home)
        .env_remove("RUST_LOG")
        .output()
        .expect("run tandem history")
}

async fn call(server: &mut McpStdio, id: i64, name: &str, arguments: Value) -> Value {
    server
        .request(
            json!(id),
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
        .await
}

#[tokio::test]
async fn a_completed_turn_becomes_searchable_and_openable() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["The flamingo", " migration needs a ", "schema bump."],
    )));
    let mut server = McpStdio::spawn(&mock_config(&model.base_url()), &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    let index = server.home.path().join("history/index.sqlite");
    assert!(!index.exists(), "index opened before first use");
    let done = call(
        &mut server,
        1,
        "codex",
        json!({"prompt": "Plan the flamingo migration.", "cwd": "/tmp", "approval-policy": "never"}),
    )
    .await;
    assert_eq!(done["result"]["isError"], false, "{done}");
    let thread_id = done["result"]["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();

    // The turn is ingested off its path, after it ended; a search sent once the call has
    // answered waits for that ingest (read-your-writes), so it finds the turn at once.
    let found = call(
        &mut server,
        11,
        "search",
        json!({"query": "flamingo migration", "verbosity": "full"}),
    )
    .await;
    let hits = found["result"]["structuredContent"]["hits"].clone();
    assert_eq!(hits.as_array().map(Vec::len), Some(2), "{found}");
    let classes: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["class"].as_str().unwrap())
        .collect();
    let mut sorted = classes.clone();
    sorted.sort();
    assert_eq!(sorted, vec!["agent_message", "user_message"]);
    assert!(
        hits.as_array()
            .unwrap()
            .iter()
            .all(|hit| hit["session_id"] == thread_id.as_str())
    );

    let prose = call(&mut server, 100, "search", json!({"query": "flamingo"})).await;
    let text = prose["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("open(event_uid=\"{thread_id}:")),
        "{text}"
    );

    let uid = hits[0]["event_uid"].as_str().unwrap();
    let opened = call(
        &mut server,
        101,
        "open",
        json!({"event_uid": uid, "before": 5, "after": 5, "verbosity": "full"}),
    )
    .await;
    let window = &opened["result"]["structuredContent"];
    assert_eq!(window["found"], true);
    assert_eq!(window["session_id"], thread_id.as_str());
    assert_eq!(window["events"].as_array().map(Vec::len), Some(2));

    let bad = call(
        &mut server,
        102,
        "search",
        json!({"query": "x", "session_id": "'; DROP TABLE events"}),
    )
    .await;
    assert_eq!(bad["result"]["isError"], true);
    let undecodable = call(&mut server, 103, "open", json!({"event_uid": 7})).await;
    assert_eq!(undecodable["error"]["code"], -32602);

    // The CLI sees the same index.
    let home = server.home.path().to_path_buf();
    let printed = history(&home, &["search", "flamingo"]);
    assert!(printed.status.success());
    let stdout = String::from_utf8_lossy(&printed.stdout);
    assert!(stdout.contains(&thread_id), "{stdout}");
    let opened = history(&home, &["open", uid, "-B", "1"]);
    assert!(opened.status.success());
    assert!(String::from_utf8_lossy(&opened.stdout).contains("--- target ---"));
    let missing = history(&home, &["open", "nope:1"]);
    assert!(!missing.status.success());
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn the_history_only_mode_offers_just_search_and_open() {
    let mut server = McpStdio::spawn(
        &mock_config("http://127.0.0.1:9"),
        &["--tools", "search,open"],
    )
    .await;
    server.initialize("2025-06-18", json!({})).await;
    let tools = server.request(json!(1), "tools/list", json!({})).await;
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["search", "open"]);
    let codex = call(&mut server, 2, "codex", json!({"prompt": "x"})).await;
    assert_eq!(codex["error"]["message"], "unknown tool: codex");
    let empty = call(&mut server, 3, "search", json!({"query": "  "})).await;
    assert_eq!(
        empty["result"],
        json!({"content": [{"type": "text", "text": "query must not be empty"}], "isError": true})
    );
    let missing = call(
        &mut server,
        4,
        "open",
        json!({"event_uid": "s:1", "verbosity": "full"}),
    )
    .await;
    assert_eq!(
        missing["result"]["structuredContent"],
        json!({"found": false, "event_uid": "s:1", "events": []})
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[test]
fn a_bad_history_config_or_unreachable_clickhouse_stops_startup() {
    for (config, expected) in [
        (
            "[history]\nbackend = \"redis\"\n",
            "history.backend: unknown backend `redis`",
        ),
        (
            "[history]\nbackend = \"clickhouse\"\nurl = \"http://127.0.0.1:9\"\n",
            "history backend unavailable: clickhouse: cannot reach",
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), config).unwrap();
        let output = Command::new(tandem_binary())
            .args(["mcp-server", "--tools", "search,open"])
            .env("TANDEM_HOME", home.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{stderr}");
        let cli = history(home.path(), &["search", "x"]);
        assert!(!cli.status.success());
        assert!(String::from_utf8_lossy(&cli.stderr).contains(expected));
    }
}

/// Writes `sessions` Tandem rollouts of 10 turns × 3 events each.
fn write_corpus(dir: &Path, sessions: usize) -> usize {
    std::fs::create_dir_all(dir).unwrap();
    let mut events = 0;
    for session in 0..sessions {
        let id = format!("kill-{session:05}");
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(dir.join(format!("rollout-{id}.jsonl"))).unwrap(),
        );
        let mut line = |kind: &str, payload: Value| {
            writeln!(
                file,
                "{}",
                json!({"timestamp": "2026-11-24T10:00:00.000Z", "type": kind, "payload": payload})
            )
            .unwrap();
        };
        line("session_meta", json!({"version": 1, "meta": {"id": id}}));
        for turn in 0..10 {
            let turn_id = format!("{id}-{turn}");
            line("turn_started", json!({"turn_id": turn_id}));
            line(
                "item",
                json!({"turn_id": turn_id, "item": {"type": "userMessage", "content": [{"type": "text", "text": format!("question {turn} about topic{session} and the parser")}]}}),
            );
            line(
                "item",
                json!({"turn_id": turn_id, "item": {"type": "commandExecution", "command": "cargo test", "aggregatedOutput": format!("test result: ok. {turn} passed in module{session}")}}),
            );
            line(
                "item",
                json!({"turn_id": turn_id, "item": {"type": "agentMessage", "text": format!("answer {turn} for topic{session}: the parser is fixed")}}),
            );
            events += 3;
        }
    }
    events
}

#[test]
fn a_killed_ingest_keeps_what_it_committed_and_the_next_run_completes() {
    let home = tempfile::tempdir().unwrap();
    let total = write_corpus(&home.path().join("sessions"), 1500);
    let config = HistoryConfig::defaults(home.path());
    let mut child = Command::new(tandem_binary())
        .args(["history", "ingest"])
        .env("TANDEM_HOME", home.path())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let reader = HistoryService::connect(config.clone()).unwrap();
    // Wait for the first committed batch (read through the index itself), then SIGKILL.
    let deadline = Instant::now() + Duration::from_secs(120);
    while reader.backend().unwrap().event_count().unwrap() == 0 {
        assert!(Instant::now() < deadline, "no batch committed");
        assert!(
            child.try_wait().unwrap().is_none(),
            "ingest ended before it could be killed"
        );
        std::thread::park_timeout(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(reader);

    let after_kill = HistoryService::connect(config.clone()).unwrap();
    let committed = after_kill.backend().unwrap().event_count().unwrap();
    assert!(
        committed > 0 && committed < total as i64,
        "killed mid-run: {committed} of {total}"
    );
    // Statistics and events agree: no half-written batch is visible.
    let stats = after_kill
        .backend()
        .unwrap()
        .corpus_stats(&["parser".to_string()], LOCAL_OWNER)
        .unwrap();
    assert_eq!(stats.docs, committed);
    assert_eq!(stats.owner_docs, committed);
    let states = after_kill.backend().unwrap().file_states().unwrap();
    assert!(!states.is_empty());
    drop(after_kill);

    let rerun = history(home.path(), &["ingest"]);
    assert!(
        rerun.status.success(),
        "{}",
        String::from_utf8_lossy(&rerun.stderr)
    );
    let done = HistoryService::connect(config).unwrap();
    assert_eq!(done.backend().unwrap().event_count().unwrap(), total as i64);
    let stats = done
        .backend()
        .unwrap()
        .corpus_stats(&["parser".to_string()], LOCAL_OWNER)
        .unwrap();
    assert_eq!(stats.docs, total as i64);
    assert_eq!(stats.df, vec![(total / 3 * 2) as i64]);
    let again = history(home.path(), &["ingest"]);
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("ingested 0 events from 0 of 1500"));
}

#[tokio::test]
async fn app_server_history_methods_answer_after_a_turn() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["Pelican", " feeding schedule ", "updated."],
    )));
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    // Experimental methods need the capability.
    let mut gated = TestServer::spawn(&mock_config(&model.base_url())).await;
    gated.initialize().await;
    let refused = gated
        .request("history/search", json!({"query": "x"}))
        .await
        .unwrap_err();
    assert_eq!(
        refused["message"],
        "history/search requires experimentalApi capability"
    );

    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    // The index is opened by its first use, never on the way to answering `initialize`.
    let index = server.home.join("history/index.sqlite");
    assert!(!index.exists(), "index opened before first use");
    let thread = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "What about the pelican schedule?"}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;

    // The turn is ingested off its path; a search sent after `turn/completed` waits for that
    // ingest (read-your-writes), so it finds the turn at once.
    let found = server
        .request(
            "history/search",
            json!({"query": "pelican schedule", "limit": 5}),
        )
        .await
        .unwrap();
    assert_eq!(found["hits"].as_array().map(Vec::len), Some(2), "{found}");
    assert_eq!(found["terms"], json!(["pelican", "schedule"]));
    assert_eq!(found["backend"], "embedded");
    assert!(index.exists());
    assert_eq!(found["hits"][0]["sessionId"], thread_id.as_str());
    let uid = found["hits"][0]["eventUid"].as_str().unwrap().to_string();

    let opened = server
        .request(
            "history/open",
            json!({"eventUid": uid, "before": 1, "after": 1}),
        )
        .await
        .unwrap();
    assert_eq!(opened["found"], true);
    assert!(
        opened["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|event| event["position"] == "target" && event["eventUid"] == uid.as_str())
    );
    let missing = server
        .request("history/open", json!({"eventUid": "nope:1"}))
        .await
        .unwrap();
    assert_eq!(missing["found"], false);
    assert_eq!(missing["events"], json!([]));

    // `thread/search` finds the thread by its words, with the best match's snippet.
    let threads = server
        .request("thread/search", json!({"searchTerm": "pelican"}))
        .await
        .unwrap();
    let data = threads["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "{threads}");
    assert_eq!(data[0]["thread"]["id"], thread_id.as_str());
    assert!(
        data[0]["snippet"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("pelican"),
        "{threads}"
    );
    assert_eq!(threads["nextCursor"], Value::Null);
    let sorted = server
        .request(
            "thread/search",
            json!({"searchTerm": "pelican", "sortKey": "created_at", "sortDirection": "asc", "limit": 1}),
        )
        .await
        .unwrap();
    assert_eq!(sorted["data"][0]["thread"]["id"], thread_id.as_str());
    let nothing = server
        .request("thread/search", json!({"searchTerm": "albatross"}))
        .await
        .unwrap();
    assert_eq!(nothing["data"], json!([]));
    let bad_cursor = server
        .request(
            "thread/search",
            json!({"searchTerm": "pelican", "cursor": "x"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        bad_cursor,
        json!({"code": -32600, "message": "invalid cursor: x"})
    );
    let no_term = server
        .request("thread/search", json!({}))
        .await
        .unwrap_err();
    assert_eq!(no_term["code"], -32600, "{no_term}");

    // Tandem keeps no cross-thread memories.
    assert_eq!(
        server.request("memory/status", json!({})).await,
        Ok(json!({"v2ConsolidatedThreads": 0, "v2Ready": false}))
    );
    let bad = server
        .request("memory/status", json!({"minConsolidatedThreads": "x"}))
        .await
        .unwrap_err();
    assert_eq!(bad["code"], -32600, "{bad}");

    let empty = server
        .request("history/search", json!({"query": " "}))
        .await
        .unwrap_err();
    assert_eq!(
        empty,
        json!({"code": -32600, "message": "query must not be empty"})
    );
    let injected = server
        .request(
            "history/search",
            json!({"query": "x", "sessionId": "a' OR 1=1"}),
        )
        .await
        .unwrap_err();
    assert_eq!(injected["code"], -32600);
    let undecodable = server
        .request("history/open", json!({"eventUid": 5}))
        .await
        .unwrap_err();
    assert_eq!(undecodable["code"], -32600);
}

/// Read-your-writes behind a backlog: the resumed thread's rollout holds thousands of events
/// that were never ingested, so the ingest queued by `turn/completed` has them to read before
/// the new turn. A search sent right after `turn/completed` still finds the turn: it waits for
/// the ingests queued before it (without that wait it would run while the backlog is read).
#[tokio::test]
async fn a_search_right_after_turn_completed_sees_the_turn_behind_a_backlog() {
    const BACKLOG: usize = 300;
    let model = MockModel::start().await;
    let home = tempfile::tempdir().unwrap();
    let options = || SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    };

    let mut first = TestServer::spawn_with(options()).await;
    first
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    let started = first
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    let rollout = std::path::PathBuf::from(started["thread"]["path"].as_str().unwrap());
    model.push(MockResponse::sse(responses_text("msg_1", &["Noted."])));
    first
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "Remember this."}]}),
        )
        .await
        .unwrap();
    first.until_turn_completed().await;
    assert_eq!(first.shutdown().await, Some(0));

    // The backlog: copies of the answer's rollout lines (its item and its model-history
    // entry), written while no server runs.
    let text = std::fs::read_to_string(&rollout).unwrap();
    let answer: Vec<&str> = text
        .lines()
        .filter(|line| line.contains("Noted."))
        .collect();
    assert_eq!(answer.len(), 2, "{text}");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&rollout)
        .unwrap();
    for copy in 0..BACKLOG {
        for line in &answer {
            let line = line
                .replace("Noted.", &format!("Filler number {copy}."))
                .replace("\"msg_1\"", &format!("\"msg_filler_{copy}\""));
            writeln!(file, "{line}").unwrap();
        }
    }
    drop(file);

    let mut second = TestServer::spawn_with(options()).await;
    second
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    second
        .request(
            "thread/resume",
            json!({"threadId": thread_id, "excludeTurns": true}),
        )
        .await
        .unwrap();
    model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["The zeppelin hangar is ready."],
    )));
    second
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "Where is the zeppelin?"}]}),
        )
        .await
        .unwrap();
    second.until_turn_completed().await;
    let found = second
        .request(
            "history/search",
            json!({"query": "zeppelin hangar", "limit": 5}),
        )
        .await
        .unwrap();
    assert_eq!(found["hits"].as_array().map(Vec::len), Some(2), "{found}");
    assert!(
        model.requests()[1]["input"]
            .to_string()
            .contains(&format!("Filler number {}.", BACKLOG - 1)),
        "the backlog is part of the thread"
    );
    assert_eq!(second.shutdown().await, Some(0));
}
