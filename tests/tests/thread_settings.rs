//! `thread/settings/update` against the real binary: settings change for the next turn
//! (announced with `thread/settings/updated`, as `turn/start` overrides that change them are;
//! recorded so that `thread/read` shows them), an update during a running turn applies to the
//! next one, an update that changes nothing is not announced, and the reference's refusals.
//! (Another principal's thread: `thread_lifecycle.rs`.)

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

async fn spawn(model: &MockModel) -> (tempfile::TempDir, TestServer) {
    spawn_with(model, "").await
}

async fn spawn_with(model: &MockModel, extra_config: &str) -> (tempfile::TempDir, TestServer) {
    let home = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()) + extra_config,
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    (home, server)
}

async fn start_thread(server: &mut TestServer) -> String {
    let thread = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    thread["thread"]["id"].as_str().unwrap().to_string()
}

async fn turn(server: &mut TestServer, thread_id: &str, text: &str) {
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": text}]}),
        )
        .await
        .unwrap();
}

/// The model of the `index`th request the mock model received.
fn requested_model(model: &MockModel, index: usize) -> Value {
    model.requests()[index]["model"].clone()
}

#[tokio::test]
async fn settings_change_for_the_next_turn_and_are_announced() {
    let model = MockModel::start().await;
    let (_home, mut server) = spawn(&model).await;
    let thread_id = start_thread(&mut server).await;
    let answer = server
        .request(
            "thread/settings/update",
            json!({"threadId": thread_id, "model": "settings-model", "effort": "high", "approvalPolicy": "never", "summary": "concise", "serviceTier": "flex"}),
        )
        .await
        .unwrap();
    assert_eq!(answer, json!({}));
    let updated = server.notification("thread/settings/updated").await;
    assert_eq!(
        updated,
        json!({
            "threadId": thread_id,
            "threadSettings": {
                "disabledPluginIds": [],
                "cwd": "/tmp",
                "environments": [{"environmentId": "local", "cwd": "/tmp", "runtimeWorkspaceRoots": ["/tmp"]}],
                "approvalPolicy": "never",
                "approvalsReviewer": "user",
                "sandboxPolicy": updated["threadSettings"]["sandboxPolicy"],
                "activePermissionProfile": null,
                "model": "settings-model",
                "modelProvider": "mock",
                "serviceTier": "flex",
                "effort": "high",
                "summary": "concise",
                "collaborationMode": {"mode": "default", "settings": {"model": "settings-model", "reasoning_effort": "high", "developer_instructions": null}},
                "multiAgentMode": "explicitRequestOnly",
                "personality": null,
            },
        })
    );
    // The same settings again change nothing and are not announced: the next notification
    // is the one of the following update.
    server
        .request(
            "thread/settings/update",
            json!({"threadId": thread_id, "model": "settings-model", "serviceTier": "flex"}),
        )
        .await
        .unwrap();
    server
        .request(
            "thread/settings/update",
            json!({"threadId": thread_id, "serviceTier": null}),
        )
        .await
        .unwrap();
    let cleared = server.notification("thread/settings/updated").await;
    assert_eq!(cleared["threadSettings"]["serviceTier"], Value::Null);
    assert_eq!(cleared["threadSettings"]["model"], "settings-model");

    model.push(MockResponse::sse(responses_text("msg_1", &["Done."])));
    turn(&mut server, &thread_id, "Go.").await;
    server.until_turn_completed().await;
    assert_eq!(requested_model(&model, 0), "settings-model");
    let read = server
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(
        (&read["thread"]["model"], &read["thread"]["reasoningEffort"]),
        (&json!("settings-model"), &json!("high"))
    );
}

#[tokio::test]
async fn an_update_during_a_running_turn_applies_to_the_next_turn() {
    let model = MockModel::start().await;
    let (_home, mut server) = spawn(&model).await;
    let thread_id = start_thread(&mut server).await;
    let (slow, gate) = MockResponse::gated(responses_text("msg_1", &["Slow."]));
    model.push(slow);
    model.push(MockResponse::sse(responses_text("msg_2", &["Next."])));
    turn(&mut server, &thread_id, "First.").await;
    assert!(gate.wait_requested(Duration::from_secs(10)).await);
    server
        .request(
            "thread/settings/update",
            json!({"threadId": thread_id, "model": "later-model"}),
        )
        .await
        .unwrap();
    let updated = server.notification("thread/settings/updated").await;
    assert_eq!(updated["threadSettings"]["model"], "later-model");
    gate.release_all();
    server.until_turn_completed().await;
    turn(&mut server, &thread_id, "Second.").await;
    server.until_turn_completed().await;
    assert_eq!(requested_model(&model, 0), "mock-model");
    assert_eq!(requested_model(&model, 1), "later-model");
}

#[tokio::test]
async fn turn_start_overrides_that_change_settings_are_announced() {
    let model = MockModel::start().await;
    let (_home, mut server) = spawn(&model).await;
    let thread_id = start_thread(&mut server).await;
    model.push(MockResponse::sse(responses_text("msg_1", &["Planned."])));
    let plan = json!({"mode": "plan", "settings": {"model": "mock-model", "reasoning_effort": null, "developer_instructions": null}});
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "Plan."}], "collaborationMode": plan}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let updated: Vec<&Value> = messages
        .iter()
        .filter(|message| message["method"] == "thread/settings/updated")
        .collect();
    assert_eq!(updated.len(), 1, "{messages:?}");
    assert_eq!(
        updated[0]["params"]["threadSettings"]["collaborationMode"],
        plan
    );
}

#[tokio::test]
async fn bad_settings_params_are_refused() {
    let model = MockModel::start().await;
    let (_home, mut server) = spawn(&model).await;
    let thread_id = start_thread(&mut server).await;
    let missing = "019a0000-0000-7000-8000-000000000000";
    let refusals = [
        (
            json!({"threadId": thread_id, "permissions": ":workspace", "sandboxPolicy": {"type": "readOnly"}}),
            "`permissions` cannot be combined with `sandboxPolicy`".to_string(),
        ),
        (
            json!({"threadId": missing, "model": "x"}),
            format!("thread not found: {missing}"),
        ),
        (
            json!({"model": "x"}),
            "Invalid request: missing field `threadId`".to_string(),
        ),
        (
            json!({"threadId": thread_id, "effort": "enormous"}),
            String::new(),
        ),
    ];
    for (params, message) in refusals {
        let error = server
            .request("thread/settings/update", params.clone())
            .await
            .unwrap_err();
        assert_eq!(error["code"], -32600, "{params}");
        if !message.is_empty() {
            assert_eq!(error["message"], message.as_str(), "{params}");
        }
    }
}

#[tokio::test]
async fn a_sandbox_beyond_the_operators_ceiling_is_refused_and_changes_nothing() {
    let model = MockModel::start().await;
    let ceiling = "\n[clients]\nmax_sandbox = \"read-only\"\n";
    let (_home, mut server) = spawn_with(&model, ceiling).await;
    let thread_id = start_thread(&mut server).await;
    let error = server
        .request(
            "thread/settings/update",
            json!({"threadId": thread_id, "sandboxPolicy": {"type": "dangerFullAccess"}, "model": "other"}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.ends_with(
            "is beyond what this server lets a client obtain (clients.max_sandbox = \"read-only\")"
        ),
        "{message}"
    );
    // The refused update changed nothing, not even the settings beside the sandbox.
    let read = server
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert!(read["thread"]["model"].is_string(), "{read}");
    assert_ne!(read["thread"]["model"], "other", "{read}");
    let allowed = server
        .request(
            "thread/settings/update",
            json!({"threadId": thread_id, "sandboxPolicy": {"type": "readOnly"}, "model": "other"}),
        )
        .await
        .unwrap();
    assert_eq!(allowed, json!({}), "{allowed}");
    // The first announcement is the allowed update's: the refused one announced nothing.
    let updated = server.notification("thread/settings/updated").await;
    assert_eq!(updated["threadSettings"]["model"], "other", "{updated}");
    assert_eq!(
        updated["threadSettings"]["sandboxPolicy"]["type"], "readOnly",
        "{updated}"
    );
}
