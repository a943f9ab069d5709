//! Read state against the real binary: a turn that ends with an answer makes its stored thread
//! unread (`thread/readState/changed` before the thread goes idle, the turn named as the first
//! unread), `thread/read` and `thread/list` carry it, `thread/readState/update` marks the thread
//! read or unread only at the revision its caller saw, a later turn keeps the earliest unread
//! position, the state survives a restart, an ephemeral thread has none, and bad params are
//! refused. Another principal's thread is refused as missing in `thread_lifecycle.rs`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
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

/// Runs one turn on `thread_id` that the model answers with `answer`; returns the turn's id and
/// every message up to its `turn/completed`.
async fn run_turn(
    server: &mut TestServer,
    model: &MockModel,
    thread_id: &str,
    answer: &str,
) -> (String, Vec<Value>) {
    model.push(MockResponse::sse(responses_text("msg_1", &[answer])));
    let started = server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "Count the herons."}]}),
        )
        .await
        .unwrap();
    let turn_id = started["turn"]["id"].as_str().unwrap().to_string();
    (turn_id, server.until_turn_completed().await)
}

async fn start_thread(server: &mut TestServer, params: Value) -> String {
    let thread = server.request("thread/start", params).await.unwrap();
    thread["thread"]["id"].as_str().unwrap().to_string()
}

fn changed_of(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .filter(|message| message["method"] == "thread/readState/changed")
        .map(|message| message["params"].clone())
        .collect()
}

#[tokio::test]
async fn a_finished_turn_makes_the_thread_unread_until_it_is_marked_read() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread_id = start_thread(&mut server, json!({"cwd": "/tmp"})).await;
    let initial = json!({"firstUnread": null, "revision": format!("initial:{thread_id}")});

    let (turn_id, messages) = run_turn(&mut server, &model, &thread_id, "Seven herons.").await;
    let changed = changed_of(&messages);
    assert_eq!(changed.len(), 1, "{messages:?}");
    assert_eq!(changed[0]["threadId"], json!(thread_id));
    let unread = changed[0]["readState"].clone();
    assert_eq!(
        unread["firstUnread"],
        json!({"type": "turn", "turnId": turn_id})
    );
    assert_ne!(unread["revision"], initial["revision"]);
    // As the reference orders them: the read state, then the idle status, then the turn.
    let order: Vec<String> = methods(&messages)
        .into_iter()
        .filter(|method| {
            [
                "thread/readState/changed",
                "thread/status/changed",
                "turn/completed",
            ]
            .contains(&method.as_str())
        })
        .collect();
    assert_eq!(
        order[order.len() - 3..],
        [
            "thread/readState/changed",
            "thread/status/changed",
            "turn/completed"
        ]
    );

    let read = server
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(read["readState"], unread);
    let listed = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(listed["readStates"], json!({ thread_id.clone(): unread }));

    // An edit made from a revision its caller saw before the result is refused.
    let stale = server
        .request(
            "thread/readState/update",
            json!({"threadId": thread_id, "expectedRevision": initial["revision"], "operation": {"type": "read"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        stale,
        json!({
            "code": -32600,
            "message": "read state changed",
            "data": {"reason": "readStateConflict", "readState": unread},
        })
    );

    // The subscribers hear of the change before the answer comes, in the reference's order.
    let request = server
        .send_request(
            "thread/readState/update",
            json!({"threadId": thread_id, "expectedRevision": unread["revision"], "operation": {"type": "read"}}),
        )
        .await;
    let announced = server.next_message().await;
    let answer = server.next_message().await;
    assert_eq!(answer["id"], json!(request), "{announced} {answer}");
    let marked = answer["result"].clone();
    assert_eq!(marked["readState"]["firstUnread"], Value::Null);
    assert_eq!(
        announced,
        json!({"method": "thread/readState/changed", "params": {"threadId": thread_id, "readState": marked["readState"]}, "emittedAtMs": announced["emittedAtMs"]})
    );

    let unmarked = server
        .request(
            "thread/readState/update",
            json!({"threadId": thread_id, "expectedRevision": marked["readState"]["revision"], "operation": {"type": "unread"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        unmarked["readState"]["firstUnread"],
        json!({"type": "threadStart"})
    );
    server.notification("thread/readState/changed").await;

    // A later result keeps the earliest unread position and changes the revision.
    let (_, messages) = run_turn(&mut server, &model, &thread_id, "Eight herons.").await;
    let changed = changed_of(&messages);
    assert_eq!(changed.len(), 1, "{messages:?}");
    assert_eq!(
        changed[0]["readState"]["firstUnread"],
        json!({"type": "threadStart"})
    );
    assert_ne!(
        changed[0]["readState"]["revision"],
        unmarked["readState"]["revision"]
    );
    let kept = changed[0]["readState"].clone();
    server.shutdown().await;

    // The read state is kept in the thread index, across a restart.
    let mut server = spawn_in(home.path(), &model).await;
    let listed = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(listed["readStates"], json!({ thread_id.clone(): kept }));
    server.shutdown().await;
}

#[tokio::test]
async fn an_ephemeral_thread_has_no_read_state() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread_id = start_thread(&mut server, json!({"cwd": "/tmp", "ephemeral": true})).await;
    let (_, messages) = run_turn(&mut server, &model, &thread_id, "Nine herons.").await;
    assert_eq!(changed_of(&messages), Vec::<Value>::new());
    let read = server
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(read["readState"], Value::Null);
    let refused = server
        .request(
            "thread/readState/update",
            json!({"threadId": thread_id, "expectedRevision": format!("initial:{thread_id}"), "operation": {"type": "read"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        refused,
        json!({"code": -32600, "message": "thread read state unavailable"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn bad_read_state_updates_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread_id = start_thread(&mut server, json!({"cwd": "/tmp"})).await;
    run_turn(&mut server, &model, &thread_id, "Ten herons.").await;
    let before = server
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap()["readState"]
        .clone();
    let revision = before["revision"].as_str().unwrap().to_string();
    let missing = "019a0000-0000-7000-8000-000000000000";
    let cases = [
        json!({"threadId": thread_id, "expectedRevision": revision}),
        json!({"threadId": thread_id, "expectedRevision": revision, "operation": {"type": "skim"}}),
        json!({"threadId": thread_id, "operation": {"type": "read"}}),
        json!({"threadId": missing, "expectedRevision": revision, "operation": {"type": "read"}}),
        json!({"threadId": thread_id, "expectedRevision": "r".repeat(300), "operation": {"type": "read"}}),
    ];
    for params in cases {
        let refused = server
            .request("thread/readState/update", params.clone())
            .await
            .unwrap_err();
        assert_eq!(refused["code"], -32600, "{params}: {refused}");
    }
    // As the reference answers it: not a thread id is invalid params.
    let refused = server
        .request(
            "thread/readState/update",
            json!({"threadId": "not-a-thread", "expectedRevision": revision, "operation": {"type": "read"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(refused["code"], -32602, "{refused}");
    // Nothing changed.
    let read = server
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(read["readState"], before);
    server.shutdown().await;
}

#[tokio::test]
async fn a_client_without_the_experimental_api_sees_the_read_state_but_no_notification() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    let thread_id = start_thread(&mut server, json!({"cwd": "/tmp"})).await;
    let (turn_id, messages) = run_turn(&mut server, &model, &thread_id, "Two herons.").await;
    // As the reference: the notification is sent before the turn ends, to experimental
    // clients only.
    assert_eq!(changed_of(&messages), Vec::<Value>::new());
    let listed = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(
        listed["readStates"][&thread_id]["firstUnread"],
        json!({"type": "turn", "turnId": turn_id})
    );
    server.shutdown().await;
}
