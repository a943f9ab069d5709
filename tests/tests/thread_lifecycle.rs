//! `thread/delete` against the real binary: the thread leaves the engine, its rollout file, the
//! thread index and the history index, also across a restart; a running turn ends first; an
//! archived thread goes too; bad params are refused. And every method of this family that
//! names a thread (`thread/delete`, `thread/metadata/update`, `thread/inject_items`,
//! `thread/revert`, `thread/goal/*`, `thread/attachment/*`, `thread/section/move`,
//! `thread/settings/update`, `thread/readState/update`, `review/start`) refuses another
//! principal's thread exactly as a missing one.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, home_with};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, methods, mock_config};

async fn spawn_in(home: &std::path::Path, model: &MockModel) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.to_path_buf()),
        cwd: None,
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    server
}

/// Starts a thread and runs one turn on it that the model answers with `answer`.
async fn thread_with_turn(
    server: &mut TestServer,
    model: &MockModel,
    prompt: &str,
    answer: &str,
) -> String {
    model.push(MockResponse::sse(responses_text("msg_1", &[answer])));
    let thread = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": prompt}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    thread_id
}

/// Every rollout file under the home (live and archived).
fn rollouts(home: &std::path::Path) -> Vec<std::path::PathBuf> {
    fn walk(directory: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(directory) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if path
                .extension()
                .is_some_and(|extension| extension == "jsonl")
            {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&home.join("sessions"), &mut found);
    walk(&home.join("archived_sessions"), &mut found);
    found.sort();
    found
}

fn ids(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|thread| thread["id"].as_str().unwrap().to_string())
        .collect()
}

async fn history_sessions(server: &mut TestServer, query: &str) -> Vec<String> {
    let found = server
        .request("history/search", json!({"query": query, "limit": 10}))
        .await
        .unwrap();
    found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["sessionId"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_deleted_thread_leaves_every_index_and_stays_gone_after_a_restart() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let doomed = thread_with_turn(
        &mut server,
        &model,
        "Plan the pelican migration.",
        "Pelicans fly south.",
    )
    .await;
    let kept = thread_with_turn(
        &mut server,
        &model,
        "Plan the pelican census.",
        "Count them twice.",
    )
    .await;
    assert_eq!(rollouts(home.path()).len(), 2);
    let mut before = history_sessions(&mut server, "pelican").await;
    before.sort();
    before.dedup();
    let mut both = vec![doomed.clone(), kept.clone()];
    both.sort();
    assert_eq!(before, both);

    let delete_id = server
        .send_request("thread/delete", json!({"threadId": doomed}))
        .await;
    let messages = vec![
        server.next_message().await,
        server.next_message().await,
        server.next_message().await,
    ];
    assert_eq!(
        methods(&messages),
        vec!["thread/status/changed", "response", "thread/deleted"]
    );
    assert_eq!(
        messages[0]["params"],
        json!({"threadId": doomed, "status": {"type": "notLoaded"}})
    );
    assert_eq!(messages[1], json!({"id": delete_id, "result": {}}));
    assert_eq!(messages[2]["params"], json!({"threadId": doomed}));

    // The rollout file, the thread index, the loaded list and the history index.
    let left = rollouts(home.path());
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].to_string_lossy().contains(&kept));
    let list = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(ids(&list), vec![kept.clone()]);
    let archived = server
        .request("thread/list", json!({"archived": true}))
        .await
        .unwrap();
    assert_eq!(ids(&archived), Vec::<String>::new());
    let loaded = server
        .request("thread/loaded/list", json!({}))
        .await
        .unwrap();
    assert_eq!(loaded["data"], json!([kept.clone()]));
    assert_eq!(
        history_sessions(&mut server, "pelican migration").await,
        vec![kept.clone()]
    );
    let read = server
        .request("thread/read", json!({"threadId": doomed}))
        .await
        .unwrap_err();
    assert_eq!(read["code"], -32600, "{read}");
    let again = server
        .request("thread/delete", json!({"threadId": doomed}))
        .await
        .unwrap_err();
    assert_eq!(
        again,
        json!({"code": -32600, "message": format!("no rollout found for thread id {doomed}")})
    );
    server.shutdown().await;

    // A new process, with the thread index rebuilt from the rollouts, knows nothing of it.
    std::fs::remove_file(home.path().join("state.sqlite")).unwrap();
    let mut server = spawn_in(home.path(), &model).await;
    let list = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(ids(&list), vec![kept.clone()]);
    let resumed = server
        .request("thread/resume", json!({"threadId": doomed}))
        .await
        .unwrap_err();
    assert_eq!(resumed["code"], -32600, "{resumed}");
    assert_eq!(
        history_sessions(&mut server, "pelican migration").await,
        vec![kept]
    );
    server.shutdown().await;
}

#[tokio::test]
async fn deleting_a_thread_with_a_running_turn_ends_the_turn_first() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let (stalled, gate) = MockResponse::gated(responses_text("msg_1", &["never ", "finished"]));
    model.push(stalled);
    let thread = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "Take your time."}]}),
        )
        .await
        .unwrap();
    assert!(gate.wait_requested(Duration::from_secs(10)).await);
    server.notification("turn/started").await;

    let delete_id = server
        .send_request("thread/delete", json!({"threadId": thread_id}))
        .await;
    let mut seen = Vec::new();
    loop {
        let message = server.next_message().await;
        let done = message.get("method") == Some(&json!("thread/deleted"));
        seen.push(message);
        if done {
            break;
        }
    }
    // The turn's `active` status may still be in the backlog: only what came after counts.
    seen.retain(|message| message["params"]["status"]["type"] != "active");
    let order: Vec<String> = methods(&seen)
        .into_iter()
        .filter(|method| {
            [
                "turn/completed",
                "thread/status/changed",
                "response",
                "thread/deleted",
            ]
            .contains(&method.as_str())
        })
        .collect();
    // As the reference: the turn ends (`idle`, then `turn/completed`) before the thread is
    // unloaded and deleted.
    assert_eq!(
        order,
        [
            "thread/status/changed",
            "turn/completed",
            "thread/status/changed",
            "response",
            "thread/deleted"
        ],
        "{seen:?}"
    );
    let statuses: Vec<&Value> = seen
        .iter()
        .filter(|message| message["method"] == "thread/status/changed")
        .map(|message| &message["params"]["status"]["type"])
        .collect();
    assert_eq!(statuses, [&json!("idle"), &json!("notLoaded")]);
    let completed = seen
        .iter()
        .find(|message| message["method"] == "turn/completed")
        .unwrap();
    assert_eq!(completed["params"]["turn"]["status"], "interrupted");
    let response = seen.iter().find(|message| message.get("result").is_some());
    assert_eq!(
        response,
        Some(&json!({"id": delete_id, "result": {}})),
        "{seen:?}"
    );
    // The ending turn wrote its last lines and its index row before the files went, so
    // nothing of the thread is left behind.
    assert_eq!(rollouts(home.path()), Vec::<std::path::PathBuf>::new());
    let list = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(ids(&list), Vec::<String>::new());
    gate.release_all();
    server.shutdown().await;
}

#[tokio::test]
async fn archived_and_never_run_threads_are_deleted_and_bad_params_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let archived = thread_with_turn(&mut server, &model, "Old question.", "Old answer.").await;
    server
        .request("thread/archive", json!({"threadId": archived}))
        .await
        .unwrap();
    assert_eq!(
        server
            .request("thread/delete", json!({"threadId": archived}))
            .await
            .unwrap(),
        json!({})
    );
    assert_eq!(
        server.notification("thread/deleted").await,
        json!({"threadId": archived})
    );
    assert_eq!(rollouts(home.path()), Vec::<std::path::PathBuf>::new());
    let list = server
        .request("thread/list", json!({"archived": true}))
        .await
        .unwrap();
    assert_eq!(ids(&list), Vec::<String>::new());

    // A thread that never ran a turn has no rollout: deleting it unloads it.
    let fresh = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap()["thread"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        server
            .request("thread/delete", json!({"threadId": fresh}))
            .await
            .unwrap(),
        json!({})
    );
    let loaded = server
        .request("thread/loaded/list", json!({}))
        .await
        .unwrap();
    assert_eq!(loaded["data"], json!([]));

    let missing_field = server
        .request("thread/delete", json!({}))
        .await
        .unwrap_err();
    assert_eq!(missing_field["code"], -32600, "{missing_field}");
    assert!(
        missing_field["message"]
            .as_str()
            .unwrap()
            .contains("missing field `threadId`"),
        "{missing_field}"
    );
    let not_an_id = server
        .request("thread/delete", json!({"threadId": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(not_an_id["code"], -32600, "{not_an_id}");
    assert!(
        not_an_id["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid thread id"),
        "{not_an_id}"
    );
    let unknown = "019a0000-0000-7000-8000-000000000000";
    let missing = server
        .request("thread/delete", json!({"threadId": unknown}))
        .await
        .unwrap_err();
    assert_eq!(
        missing,
        json!({"code": -32600, "message": format!("no rollout found for thread id {unknown}")})
    );
    server.shutdown().await;
}

const ALICE: &str = "alice-token-0123456789";

#[tokio::test]
async fn another_principals_thread_is_refused_as_missing_by_every_method() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["The pelican rollout is ready."],
    )));
    let home = home_with(&mock_config(&model.base_url()));
    let tokens = home.path().join("tokens");
    std::fs::write(&tokens, format!("alice {ALICE}\n")).unwrap();
    let tokens_arg = tokens.to_str().unwrap().to_string();
    let path = home.path().to_path_buf();
    let mcp = McpHttp::spawn_in(
        path.clone(),
        None,
        &["--auth-token-file", &tokens_arg],
        "info",
    )
    .await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "thread-delete-test", "version": "1"},
        },
    });
    let response = mcp
        .post_accept(None, &initialize, "application/json")
        .bearer_auth(ALICE)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let initialized = mcp
        .post(
            Some(&session),
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .bearer_auth(ALICE)
        .send()
        .await
        .unwrap();
    assert_eq!(initialized.status(), 202);
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "codex", "arguments": {
            "prompt": "Plan the pelican rollout.", "cwd": "/tmp", "approval-policy": "never",
        }},
    });
    let done = mcp
        .post_accept(Some(&session), &call, "application/json")
        .bearer_auth(ALICE)
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap()["result"]
        .clone();
    assert_eq!(done["isError"], false, "{done}");
    let alices = done["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();

    // The local user's app-server in the same home: alice's thread reads as missing, for
    // every method, and stays as it was.
    let mut server = spawn_in(&path, &model).await;
    let missing = "019a0000-0000-7000-8000-000000000000";
    let calls = [
        ("thread/delete", json!({})),
        ("thread/metadata/update", json!({"daybreakEnabled": true})),
        (
            "thread/inject_items",
            json!({"items": [{"type": "message", "role": "user", "content": []}]}),
        ),
        (
            "thread/revert",
            json!({"beforeTurnId": "019a0000-0000-7000-8000-00000000abcd"}),
        ),
        ("thread/goal/set", json!({"objective": "mine now"})),
        ("thread/goal/get", json!({})),
        ("thread/goal/clear", json!({})),
        (
            "thread/attachment/add",
            json!({"attachmentType": "file", "identityKey": "k", "payload": 1}),
        ),
        (
            "thread/attachment/remove",
            json!({"attachmentType": "file", "identityKey": "k"}),
        ),
        (
            "thread/section/move",
            json!({"sectionId": "01984de2-8f74-7c91-a3b2-5c5e937cf318"}),
        ),
        ("thread/settings/update", json!({"model": "mine now"})),
        (
            "thread/readState/update",
            json!({"expectedRevision": "r", "operation": {"type": "read"}}),
        ),
        (
            "review/start",
            json!({"target": {"type": "uncommittedChanges"}}),
        ),
    ];
    for (method, params) in calls {
        let mut for_alices = params.clone();
        for_alices["threadId"] = json!(alices);
        let mut for_missing = params;
        for_missing["threadId"] = json!(missing);
        let refused = server.request(method, for_alices).await.unwrap_err();
        let absent = server.request(method, for_missing).await.unwrap_err();
        assert_eq!(
            serde_json::to_string(&refused)
                .unwrap()
                .replace(&alices, "<id>"),
            serde_json::to_string(&absent)
                .unwrap()
                .replace(missing, "<id>"),
            "{method}"
        );
        assert!(
            refused["code"] == -32600 || refused["code"] == -32602,
            "{method}: {refused}"
        );
    }
    // Listing alice's attachments reads as listing a missing thread's: none.
    let listed = server
        .request("thread/attachment/list", json!({"threadId": alices}))
        .await
        .unwrap();
    assert_eq!(listed, json!({"data": [], "nextCursor": null}));
    let before = std::fs::read_to_string(&rollouts(&path)[0]).unwrap();
    assert_eq!(rollouts(&path).len(), 1);
    assert!(rollouts(&path)[0].to_string_lossy().contains(&alices));
    assert!(!before.contains("daybreak"), "alice's rollout was changed");
    server.shutdown().await;
    drop(mcp);
    drop(home);
}
