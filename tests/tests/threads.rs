//! Threads across restarts: list, read, turns/list, resume, fork, archive, names, kill -9
//! recovery and EOF shutdown.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text, token_deltas};
use tandem_tests::server::{SpawnOptions, TestServer, methods, mock_config};

fn text_input(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

async fn spawn_in(home: &std::path::Path, model: &MockModel) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
}

/// Starts a thread with `cwd` and runs one turn answering `answer`.
async fn thread_with_turn(
    server: &mut TestServer,
    model: &MockModel,
    cwd: &str,
    prompt: &str,
    answer: &str,
) -> String {
    model.push(MockResponse::sse(responses_text("msg_1", &[answer])));
    let thread = server
        .request("thread/start", json!({"cwd": cwd}))
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input(prompt)}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    thread_id
}

#[tokio::test]
async fn threads_survive_a_restart_and_can_be_listed_read_resumed_and_forked() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let first = thread_with_turn(
        &mut server,
        &model,
        "/work/a",
        "first question",
        "first answer",
    )
    .await;
    let second = thread_with_turn(
        &mut server,
        &model,
        "/work/b",
        "second question",
        "second answer",
    )
    .await;
    // A thread without turns is not persisted.
    server.request("thread/start", json!({})).await.unwrap();
    assert_eq!(server.shutdown().await, Some(0));

    let mut server = spawn_in(home.path(), &model).await;
    let list = server.request("thread/list", json!({})).await.unwrap();
    let ids: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![second.as_str(), first.as_str()]);
    let listed = &list["data"][0];
    assert_eq!(listed["preview"], "second question");
    assert_eq!(listed["status"], json!({"type": "notLoaded"}));
    assert_eq!(listed["turns"], json!([]));
    assert_eq!(listed["source"], "vscode");
    assert_eq!(listed["originator"], "example_client");
    assert!(listed["path"].as_str().unwrap().contains("/sessions/"));
    assert_eq!(list["nextCursor"], Value::Null);

    // Pagination, filters and sort.
    let page = server
        .request("thread/list", json!({"limit": 1}))
        .await
        .unwrap();
    assert_eq!(page["data"][0]["id"], json!(second));
    let cursor = page["nextCursor"].as_str().unwrap().to_string();
    let page = server
        .request("thread/list", json!({"limit": 1, "cursor": cursor}))
        .await
        .unwrap();
    assert_eq!(page["data"][0]["id"], json!(first));
    assert_eq!(page["nextCursor"], Value::Null);
    let asc = server
        .request(
            "thread/list",
            json!({"sortDirection": "asc", "sortKey": "updated_at"}),
        )
        .await
        .unwrap();
    assert_eq!(asc["data"][0]["id"], json!(first));
    let by_cwd = server
        .request("thread/list", json!({"cwd": "/work/a"}))
        .await
        .unwrap();
    assert_eq!(by_cwd["data"].as_array().unwrap().len(), 1);
    let search = server
        .request("thread/list", json!({"searchTerm": "second"}))
        .await
        .unwrap();
    assert_eq!(search["data"][0]["id"], json!(second));
    let none = server
        .request("thread/list", json!({"searchTerm": "SECOND"}))
        .await
        .unwrap();
    assert_eq!(none["data"], json!([]));
    let none = server
        .request("thread/list", json!({"modelProviders": ["other"]}))
        .await
        .unwrap();
    assert_eq!(none["data"], json!([]));
    let none = server
        .request("thread/list", json!({"sourceKinds": ["exec"]}))
        .await
        .unwrap();
    assert_eq!(none["data"], json!([]));
    let error = server
        .request("thread/list", json!({"cursor": "garbage"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "invalid cursor: garbage"})
    );

    // Read without and with turns.
    let read = server
        .request("thread/read", json!({"threadId": first}))
        .await
        .unwrap();
    assert_eq!(read["thread"]["turns"], json!([]));
    let read = server
        .request(
            "thread/read",
            json!({"threadId": first, "includeTurns": true}),
        )
        .await
        .unwrap();
    let turns = read["thread"]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0]["status"], "completed");
    assert_eq!(turns[0]["items"][1]["text"], "first answer");
    server.notification("deprecationNotice").await;
    let turns = server
        .request("thread/turns/list", json!({"threadId": first}))
        .await
        .unwrap();
    assert_eq!(turns["data"][0]["itemsView"], "summary");
    let error = server
        .request(
            "thread/read",
            json!({"threadId": "01a1ffdb-89c2-76d0-a988-d9092305de2a"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "thread not loaded: 01a1ffdb-89c2-76d0-a988-d9092305de2a"
    );

    // Resume, then a turn that sends the stored history.
    let resumed = server
        .request("thread/resume", json!({"threadId": first.to_uppercase()}))
        .await
        .unwrap();
    assert_eq!(resumed["thread"]["id"], json!(first));
    assert_eq!(resumed["thread"]["turns"].as_array().unwrap().len(), 1);
    model.push(MockResponse::sse(responses_text(
        "msg_9",
        &["third answer"],
    )));
    server
        .request(
            "turn/start",
            json!({"threadId": first, "input": text_input("follow-up")}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    let sent = model.requests().last().unwrap()["input"].to_string();
    assert!(
        sent.contains("first question")
            && sent.contains("first answer")
            && sent.contains("follow-up")
    );
    let loaded = server
        .request("thread/loaded/list", json!({}))
        .await
        .unwrap();
    assert_eq!(loaded["data"], json!([first]));

    // Fork copies the history into a new thread.
    let fork = server
        .request("thread/fork", json!({"threadId": first}))
        .await
        .unwrap();
    let fork_id = fork["thread"]["id"].as_str().unwrap().to_string();
    assert_ne!(fork_id, first);
    assert_eq!(fork["thread"]["forkedFromId"], json!(first));
    assert_eq!(fork["thread"]["turns"].as_array().unwrap().len(), 2);
    let started = server.notification("thread/started").await;
    assert_eq!(started["thread"]["id"], json!(fork_id));
    let error = server
        .request("thread/fork", json!({"threadId": first, "ephemeral": true}))
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "ephemeral paginated thread/fork requires `excludeTurns: true`"
    );
    let error = server
        .request(
            "thread/resume",
            json!({"threadId": "01a1ffdb-89c2-76d0-a988-d9092305de2a"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "no rollout found for thread id 01a1ffdb-89c2-76d0-a988-d9092305de2a"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn archive_unarchive_and_names() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let id = thread_with_turn(&mut server, &model, "/work/a", "hello", "hi").await;

    let error = server
        .request("thread/name/set", json!({"threadId": id, "name": "  "}))
        .await
        .unwrap_err();
    assert_eq!(error["message"], "thread name must not be empty");
    assert_eq!(
        server
            .request(
                "thread/name/set",
                json!({"threadId": id, "name": "Example thread"})
            )
            .await
            .unwrap(),
        json!({})
    );
    let renamed = server.notification("thread/name/updated").await;
    assert_eq!(
        renamed,
        json!({"threadId": id, "threadName": "Example thread"})
    );
    // The name is also recorded where Codex records it, for tools that read a Codex home.
    let index = std::fs::read_to_string(server.home.join("session_index.jsonl")).unwrap();
    let lines: Vec<Value> = index
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{index}");
    assert_eq!(lines[0]["id"], json!(id));
    assert_eq!(lines[0]["thread_name"], "Example thread");
    assert!(
        lines[0]["updated_at"].as_str().unwrap().ends_with('Z'),
        "{index}"
    );

    let archive_id = server
        .send_request("thread/archive", json!({"threadId": id}))
        .await;
    let messages = vec![
        server.next_message().await,
        server.next_message().await,
        server.next_message().await,
    ];
    assert_eq!(
        methods(&messages),
        vec!["thread/status/changed", "response", "thread/archived"]
    );
    assert_eq!(
        messages[0]["params"]["status"],
        json!({"type": "notLoaded"})
    );
    assert_eq!(messages[1]["id"], json!(archive_id));
    let list = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(list["data"], json!([]));
    let archived = server
        .request("thread/list", json!({"archived": true}))
        .await
        .unwrap();
    assert_eq!(archived["data"][0]["name"], "Example thread");
    assert!(
        archived["data"][0]["path"]
            .as_str()
            .unwrap()
            .contains("/archived_sessions/")
    );
    let error = server
        .request("thread/archive", json!({"threadId": id}))
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        format!("no rollout found for thread id {id}")
    );

    let restored = server
        .request("thread/unarchive", json!({"threadId": id}))
        .await
        .unwrap();
    assert_eq!(restored["thread"]["status"], json!({"type": "notLoaded"}));
    assert!(
        restored["thread"]["path"]
            .as_str()
            .unwrap()
            .contains("/sessions/")
    );
    server.notification("thread/unarchived").await;
    let error = server
        .request("thread/unarchive", json!({"threadId": id}))
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        format!("no archived rollout found for thread id {id}")
    );

    // Unsubscribe unloads a loaded thread.
    server
        .request(
            "thread/resume",
            json!({"threadId": id, "excludeTurns": true}),
        )
        .await
        .unwrap();
    let result = server
        .request("thread/unsubscribe", json!({"threadId": id}))
        .await
        .unwrap();
    assert_eq!(result, json!({"status": "unsubscribed"}));
    server.notification("thread/closed").await;
    let result = server
        .request("thread/unsubscribe", json!({"threadId": id}))
        .await
        .unwrap();
    assert_eq!(result, json!({"status": "notLoaded"}));
    server.shutdown().await;
}

#[tokio::test]
async fn kill_9_mid_turn_leaves_a_readable_resumable_thread() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread_id =
        thread_with_turn(&mut server, &model, "/work/a", "completed turn", "done").await;
    let (response, gate) = MockResponse::gated(responses_text("msg_2", &token_deltas(100)));
    model.push(response);
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("doomed turn")}),
        )
        .await
        .unwrap();
    gate.release(10);
    server.notification("item/agentMessage/delta").await;
    server.child.start_kill().unwrap();
    server.child.wait().await.unwrap();
    drop(gate);

    let mut server = spawn_in(home.path(), &model).await;
    let read = server
        .request(
            "thread/read",
            json!({"threadId": thread_id, "includeTurns": true}),
        )
        .await
        .unwrap();
    let turns = read["thread"]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["status"], "completed");
    assert_eq!(turns[1]["status"], "interrupted");
    assert_eq!(turns[1]["items"][0]["content"][0]["text"], "doomed turn");
    server
        .request(
            "thread/resume",
            json!({"threadId": thread_id, "excludeTurns": true}),
        )
        .await
        .unwrap();
    model.push(MockResponse::sse(responses_text("msg_3", &["recovered"])));
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("again")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn eof_during_a_turn_interrupts_it_flushes_and_exits_zero() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &token_deltas(100)));
    model.push(response);
    let thread = server.request("thread/start", json!({})).await.unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("long")}),
        )
        .await
        .unwrap();
    gate.release(3);
    server.notification("item/agentMessage/delta").await;
    let started = std::time::Instant::now();
    assert_eq!(server.shutdown().await, Some(0));
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(gate);

    let mut server = spawn_in(home.path(), &model).await;
    let read = server
        .request(
            "thread/read",
            json!({"threadId": thread_id, "includeTurns": true}),
        )
        .await
        .unwrap();
    assert_eq!(read["thread"]["turns"][0]["status"], "interrupted");
    server.shutdown().await;
}

#[tokio::test]
async fn a_deleted_index_is_rebuilt_from_the_rollouts() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let id = thread_with_turn(&mut server, &model, "/work/a", "keep me", "ok").await;
    server.shutdown().await;
    std::fs::write(home.path().join("state.sqlite"), b"this is not a database").unwrap();
    let _ = std::fs::remove_file(home.path().join("state.sqlite-wal"));
    let _ = std::fs::remove_file(home.path().join("state.sqlite-shm"));
    let mut server = spawn_in(home.path(), &model).await;
    let list = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(list["data"][0]["id"], json!(id));
    assert_eq!(list["data"][0]["preview"], "keep me");
    server.shutdown().await;
}

#[tokio::test]
async fn thread_start_config_overrides_apply_to_that_thread_only() {
    let model = MockModel::start().await;
    let home = tempfile::tempdir().unwrap();
    let mut server = spawn_in(home.path(), &model).await;
    let overridden = server
        .request(
            "thread/start",
            json!({"cwd": "/tmp", "config": {"approval_policy": "untrusted", "model": "x-model"}}),
        )
        .await
        .unwrap();
    assert_eq!(overridden["approvalPolicy"], "untrusted");
    assert_eq!(overridden["model"], "x-model");
    let plain = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    assert_eq!(plain["approvalPolicy"], "never");
    assert_eq!(plain["model"], "mock-model");
    let error = server
        .request(
            "thread/start",
            json!({"cwd": "/tmp", "config": {"approval_policy": "sometimes"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("failed to load configuration"),
        "{error}"
    );
}
