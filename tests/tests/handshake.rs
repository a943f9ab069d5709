//! The connection rules, as observed on the reference server: initialize gating, error codes,
//! malformed and oversized lines, concurrency and shutdown.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use tandem_tests::mock_model::MockModel;
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

#[tokio::test]
async fn requests_before_initialize_and_a_second_initialize_are_rejected() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    let error = server.request("thread/list", json!({})).await.unwrap_err();
    assert_eq!(error, json!({"code": -32600, "message": "Not initialized"}));

    let result = server.initialize().await;
    let user_agent = result["userAgent"].as_str().unwrap();
    assert!(
        user_agent.starts_with("example_client/0.169.0 ("),
        "{user_agent}"
    );
    assert!(user_agent.contains("tandem/"), "{user_agent}");
    assert!(
        user_agent.ends_with("(example_client; 0.1.0)"),
        "{user_agent}"
    );
    assert_eq!(result["codexHome"], json!(server.home.to_string_lossy()));
    assert_eq!(result["platformFamily"], "unix");

    let error = server
        .request(
            "initialize",
            json!({"clientInfo": {"name": "x", "version": "1"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "Already initialized"})
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn bad_requests_get_minus_32600_with_useful_messages() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;

    let error = server.request("foo/bar", json!({})).await.unwrap_err();
    assert_eq!(error["code"], -32600);
    assert!(
        error["message"].as_str().unwrap().starts_with(
            "Invalid request: unknown variant `foo/bar`, expected one of `initialize`"
        )
    );

    server
        .send(&json!({"id": 50, "method": "model/list"}))
        .await;
    assert_eq!(
        server.response(50).await.unwrap_err(),
        json!({"code": -32600, "message": "Invalid request: missing field `params`"})
    );

    let error = server
        .request("thread/list", json!({"limit": -1}))
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "Invalid request: invalid value: integer `-1`, expected u32"
    );

    let error = server
        .request("thread/start", json!({"sandbox": "workspaceWrite"}))
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("unknown variant `workspaceWrite`")
    );

    let error = server
        .request("thread/read", json!({"threadId": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid thread id: ")
    );

    let error = server
        .request("turn/start", json!({"threadId": "01a1ffdb-89c2-76d0-a988-d9092305de2a", "input": [], "collaborationMode": {"mode": "plan", "settings": {"model": "m"}}}))
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "turn/start.collaborationMode requires experimentalApi capability"
    );

    let error = server
        .request("thread/start", json!({"modelProvider": "no-such-provider"}))
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "failed to load configuration: Model provider `no-such-provider` not found"
    );

    // Unknown fields are ignored, `"jsonrpc"` is accepted and string ids are echoed as strings.
    server.send(&json!({"jsonrpc": "2.0", "id": "req-abc", "method": "thread/list", "params": {"bogusField": true}})).await;
    let reply = server
        .take_matching(|message| message.get("id") == Some(&json!("req-abc")))
        .await;
    assert_eq!(reply["result"]["data"], json!([]));
    assert!(reply.get("jsonrpc").is_none());
    server.shutdown().await;
}

/// Malformed lines are ignored, as by the reference server; an over-long line is answered
/// `-32600` with its id (its client would wait forever otherwise), and reading continues.
#[tokio::test]
async fn malformed_lines_get_no_reply_oversized_ones_an_error_and_reading_continues() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: vec!["-c".into(), "app_server.max_line_bytes=1024".into()],
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
        .send_line(r#"{"id": 2, "method": "thread/list", "params": {"#)
        .await;
    server
        .send_line(r#"[{"id":3,"method":"thread/list","params":{}}]"#)
        .await;
    server
        .send_line(r#"{"id":null,"method":"thread/list","params":{}}"#)
        .await;
    server.send_line(r#"{"id":19,"method":42}"#).await;
    server.send_line(r#"{"foo":1}"#).await;
    server.send_line(r#"{"id":77,"result":{}}"#).await;
    server
        .send_line(r#"{"method":"foo/unknownNotification"}"#)
        .await;
    let huge = format!(
        r#"{{"id":4,"method":"thread/list","params":{{"searchTerm":"{}"}}}}"#,
        "x".repeat(4096)
    );
    server.send_line(&huge).await;
    let id = server.send_request("thread/loaded/list", json!({})).await;
    // The only replies are to the over-long line and to the last, well-formed request.
    assert_eq!(
        server.next_message().await,
        json!({"id": 4, "error": {"code": -32600, "message": "invalid request: the line exceeds the limit of 1024 bytes (app_server.max_line_bytes)"}})
    );
    let second = server.next_message().await;
    assert_eq!(second["id"], json!(id));
    assert_eq!(second["result"], json!({"data": [], "nextCursor": null}));
    let (later, code) = server.finish().await;
    assert_eq!(later, Vec::<serde_json::Value>::new());
    assert_eq!(code, Some(0));
}

#[tokio::test]
async fn requests_run_concurrently_and_answer_out_of_order() {
    let model = MockModel::start().await;
    model.set_models_delay(Duration::from_millis(500));
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let slow = server.send_request("model/list", json!({})).await;
    let fast = server.send_request("thread/loaded/list", json!({})).await;
    let first = server.next_message().await;
    let second = server.next_message().await;
    assert_eq!(first["id"], json!(fast));
    assert_eq!(second["id"], json!(slow));
    assert_eq!(second["result"]["data"][0]["id"], "mock-model");
    server.shutdown().await;
}

#[tokio::test]
async fn a_saturated_queue_answers_overloaded() {
    let model = MockModel::start().await;
    model.set_models_delay(Duration::from_millis(800));
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: vec!["-c".into(), "app_server.request_queue_capacity=2".into()],
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    let mut ids = Vec::new();
    for _ in 0..12 {
        ids.push(server.send_request("model/list", json!({})).await);
    }
    let mut overloaded = 0;
    let mut answered = 0;
    for id in ids {
        match server.response(id).await {
            Ok(_) => answered += 1,
            Err(error) => {
                assert_eq!(
                    error,
                    json!({"code": -32001, "message": "Server overloaded; retry later."})
                );
                overloaded += 1;
            }
        }
    }
    assert!(overloaded >= 1, "no request was refused");
    // How many get through depends on scheduling; at least the first does, and never more
    // than the queue plus the workers before the first answer could free a slot.
    assert!(answered >= 1, "no request was served");
    server.shutdown().await;
}

#[tokio::test]
async fn a_bad_config_file_stops_the_server_before_it_serves() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "approval_policy = \"sometimes\"\n",
    )
    .unwrap();
    let output = tokio::process::Command::new(tandem_tests::server::tandem_binary())
        .arg("app-server")
        .env("TANDEM_HOME", home.path())
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("config.toml:1"), "{stderr}");
    assert!(stderr.contains("approval_policy"), "{stderr}");
}

/// `getAuthStatus` answers as on the reference (`g3_error_probes`): no login, none required,
/// whatever the params ask for.
#[tokio::test]
async fn get_auth_status_answers_as_the_reference() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let expected = json!({"authMethod": null, "authToken": null, "requiresOpenaiAuth": false});
    assert_eq!(
        server.request("getAuthStatus", json!({})).await.unwrap(),
        expected
    );
    assert_eq!(
        server
            .request(
                "getAuthStatus",
                json!({"includeToken": true, "refreshToken": true})
            )
            .await
            .unwrap(),
        expected
    );
    assert_eq!(server.shutdown().await, Some(0));
}
