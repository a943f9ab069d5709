//! `model/list` paging (`limit` or its alias `pageSize`, `cursor`, `nextCursor`) and the
//! experimental `collaborationMode/list` presets, end to end through the binary: the presets'
//! tri-state fields on the wire, applied to a thread's mode and sent with `turn/start`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use app_server_protocol::policy::{CollaborationMode, CollaborationModeMask};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{TestServer, mock_config};

/// The slugs of a `model/list` page and its `nextCursor`.
fn page(response: &Value) -> (Vec<String>, Value) {
    let slugs = response["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|model| model["model"].as_str().unwrap().to_string())
        .collect();
    (slugs, response["nextCursor"].clone())
}

#[tokio::test]
async fn model_list_pages_through_the_cursor_with_limit_or_page_size() {
    let model = MockModel::start().await;
    model.set_model_entries(vec![
        json!({"id": "model-a"}),
        json!({"id": "mock-model"}),
        json!({"id": "model-c"}),
    ]);
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;

    for size in ["limit", "pageSize"] {
        let mut slugs = Vec::new();
        let mut cursors = Vec::new();
        let mut cursor = Value::Null;
        loop {
            let response = server
                .request("model/list", json!({size: 1, "cursor": cursor}))
                .await
                .unwrap();
            let (page_slugs, next) = page(&response);
            assert_eq!(page_slugs.len(), 1, "{size}: {response}");
            slugs.extend(page_slugs);
            cursors.push(next.clone());
            if next.is_null() {
                break;
            }
            cursor = next;
        }
        assert_eq!(slugs, ["model-a", "mock-model", "model-c"], "{size}");
        assert_eq!(cursors, [json!("1"), json!("2"), Value::Null], "{size}");
    }

    // `limit` wins over `pageSize`.
    let both = server
        .request("model/list", json!({"limit": 2, "pageSize": 1}))
        .await
        .unwrap();
    assert_eq!(
        page(&both),
        (
            vec!["model-a".to_string(), "mock-model".to_string()],
            json!("2")
        )
    );

    // The fields of one entry, as documented.
    let entry = &both["data"][1];
    assert_eq!(entry["isDefault"], true, "config's `model` is the default");
    assert_eq!(both["data"][0]["isDefault"], false);
    assert_eq!(entry["defaultReasoningEffort"], "medium");
    assert_eq!(entry["supportsPersonality"], false);
    assert_eq!(entry["upgrade"], Value::Null);
    assert_eq!(
        entry["supportedReasoningEfforts"][0],
        json!({"reasoningEffort": "low", "description": "Fast responses with lighter reasoning"})
    );

    let error = server
        .request("model/list", json!({"limit": 1, "cursor": "zzz"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "invalid cursor: zzz"})
    );
    assert_eq!(server.shutdown().await, Some(0));
}

/// Runs one turn with `mode` and returns the thread's mode afterwards (from `thread/resume`).
async fn turn_in_mode(
    server: &mut TestServer,
    model: &MockModel,
    thread_id: &str,
    mode: &CollaborationMode,
) -> CollaborationMode {
    model.push(MockResponse::sse(responses_text("msg_1", &["ok"])));
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "go"}], "collaborationMode": mode}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    let resumed = server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    serde_json::from_value(resumed["collaborationMode"].clone()).unwrap()
}

#[tokio::test]
async fn collaboration_mode_presets_keep_clear_or_set_each_field() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;

    // Omitted fields are absent on the wire, cleared ones `null`.
    let listed = server
        .request("collaborationMode/list", json!({}))
        .await
        .unwrap();
    assert_eq!(
        listed,
        json!({"data": [
            {"name": "Plan", "mode": "plan", "reasoning_effort": "medium"},
            {"name": "Default", "mode": "default", "reasoning_effort": null, "developer_instructions": null},
        ]})
    );
    let presets: Vec<CollaborationModeMask> =
        serde_json::from_value(listed["data"].clone()).unwrap();

    let started = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    let current: CollaborationMode = serde_json::from_value(json!({
        "mode": "default",
        "settings": {"model": "mock-model", "reasoning_effort": "high", "developer_instructions": "be brief"},
    }))
    .unwrap();
    let mode = turn_in_mode(&mut server, &model, &thread_id, &current).await;
    assert_eq!(mode, current);

    // `Plan` sets the mode and the effort and keeps the instructions and the model.
    let plan = presets[0].apply(&mode);
    let mode = turn_in_mode(&mut server, &model, &thread_id, &plan).await;
    assert_eq!(
        serde_json::to_value(&mode).unwrap(),
        json!({"mode": "plan", "settings": {"model": "mock-model", "reasoning_effort": "medium", "developer_instructions": "be brief"}})
    );

    // `Default` sets the mode and clears the effort and the instructions.
    let default = presets[1].apply(&mode);
    let mode = turn_in_mode(&mut server, &model, &thread_id, &default).await;
    assert_eq!(
        serde_json::to_value(&mode).unwrap(),
        json!({"mode": "default", "settings": {"model": "mock-model", "reasoning_effort": null, "developer_instructions": null}})
    );
    assert_eq!(server.shutdown().await, Some(0));
}
