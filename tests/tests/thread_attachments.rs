//! `thread/attachment/add|list|remove` against the real binary: attachments are kept with a
//! persisted thread, found again by type and identity, paged, removed, announced with
//! `thread/attachment/updated`, kept across a restart, and capped; refusals are `-32602` as
//! the reference's. (Another principal's thread: `thread_lifecycle.rs`.)

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

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

fn params_error(error: &Value) -> String {
    assert_eq!(error["code"], -32602, "{error}");
    error["message"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn attachments_are_kept_found_paged_removed_and_capped() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    let add = |identity: &str, payload: Value| json!({"threadId": thread_id, "attachmentType": "file", "identityKey": identity, "payload": payload});
    // As the reference: a thread that ran no turn is not stored yet.
    let unstored = server
        .request("thread/attachment/add", add("/etc/passwd", json!(1)))
        .await
        .unwrap_err();
    assert_eq!(
        params_error(&unstored),
        format!("thread not found: {thread_id}")
    );

    model.push(MockResponse::sse(responses_text("msg_1", &["Hi."])));
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "Hello."}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;

    let created = server
        .request(
            "thread/attachment/add",
            add("/etc/passwd", json!({"path": "/etc/passwd"})),
        )
        .await
        .unwrap();
    assert_eq!(created["outcome"], "created");
    let first = created["attachment"].clone();
    assert_eq!(first["attachmentType"], "file");
    assert_eq!(first["identityKey"], "/etc/passwd");
    assert_eq!(first["payload"], json!({"path": "/etc/passwd"}));
    let updated = server.notification("thread/attachment/updated").await;
    assert_eq!(
        updated,
        json!({"threadId": thread_id, "attachmentType": "file", "identityKey": "/etc/passwd", "attachmentId": first["id"], "operation": "created"})
    );
    // The same identity again: the kept one, unchanged, and no notification.
    let existing = server
        .request("thread/attachment/add", add("/etc/passwd", json!("other")))
        .await
        .unwrap();
    assert_eq!(
        existing,
        json!({"outcome": "existing", "attachment": first})
    );
    let second = server
        .request("thread/attachment/add", add("/tmp/b.txt", json!(7)))
        .await
        .unwrap()["attachment"]
        .clone();
    let page = server
        .request(
            "thread/attachment/list",
            json!({"threadId": thread_id, "limit": 1}),
        )
        .await
        .unwrap();
    assert_eq!(page["data"], json!([first]));
    let rest = server
        .request(
            "thread/attachment/list",
            json!({"threadId": thread_id, "cursor": page["nextCursor"]}),
        )
        .await
        .unwrap();
    assert_eq!(rest, json!({"data": [second], "nextCursor": null}));

    let checks = [
        (
            json!({"threadId": thread_id, "attachmentType": "", "identityKey": "x", "payload": 1}),
            "attachmentType must not be empty".to_string(),
        ),
        (
            json!({"threadId": thread_id, "attachmentType": "file", "identityKey": "", "payload": 1}),
            "identityKey must not be empty".to_string(),
        ),
        (
            add("/big", json!("x".repeat(70_000))),
            "payload must be at most 65536 bytes".to_string(),
        ),
        (
            json!({"threadId": "019a0000-0000-7000-8000-000000000000", "attachmentType": "file", "identityKey": "x", "payload": 1}),
            "thread not found: 019a0000-0000-7000-8000-000000000000".to_string(),
        ),
    ];
    for (params, message) in checks {
        let error = server
            .request("thread/attachment/add", params)
            .await
            .unwrap_err();
        assert_eq!(params_error(&error), message);
    }
    let missing = server
        .request(
            "thread/attachment/list",
            json!({"threadId": "019a0000-0000-7000-8000-000000000000"}),
        )
        .await
        .unwrap();
    assert_eq!(missing, json!({"data": [], "nextCursor": null}));
    let undecodable = server
        .request("thread/attachment/add", json!({"threadId": thread_id}))
        .await
        .unwrap_err();
    assert_eq!(undecodable["code"], -32600, "{undecodable}");
    server.shutdown().await;

    // A later process has them, for the stored thread, and removes one.
    let mut server = spawn_in(home.path(), &model).await;
    let listed = server
        .request("thread/attachment/list", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(listed["data"], json!([first, second]));
    let removed = server
        .request(
            "thread/attachment/remove",
            json!({"threadId": thread_id, "attachmentType": "file", "identityKey": "/etc/passwd"}),
        )
        .await
        .unwrap();
    assert_eq!(removed, json!({}));
    let updated = server.notification("thread/attachment/updated").await;
    assert_eq!(updated["operation"], "deleted");
    assert_eq!(updated["attachmentId"], first["id"]);
    let again = server
        .request(
            "thread/attachment/remove",
            json!({"threadId": thread_id, "attachmentType": "file", "identityKey": "/etc/passwd"}),
        )
        .await
        .unwrap();
    assert_eq!(again, json!({}));
    let listed = server
        .request("thread/attachment/list", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(listed["data"], json!([second]));
    server.shutdown().await;
}
