//! `thread/queue/add` and `thread/queue/list` (experimental) through the real binary and the
//! mock model: an input queued behind a running turn is listed, announced with
//! `thread/queue/changed`, and starts its own turn when the running one completes; on an idle
//! thread it starts at once; bad requests are refused.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::time::Duration;

use common::tool_turns::{find, setup};
use pretty_assertions::assert_eq;
use serde_json::json;
use tandem_tests::mock_model::{MockResponse, responses_text};

#[tokio::test]
async fn a_queued_input_starts_its_turn_when_the_running_one_completes() {
    let mut setup = setup("never", "read-only").await;
    let (first, gate) = MockResponse::gated(responses_text("msg_1", &["first answer"]));
    setup.model.push(first);
    setup.model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["second answer"],
    )));
    setup
        .server
        .request(
            "turn/start",
            json!({"threadId": setup.thread_id, "input": [{"type": "text", "text": "first"}]}),
        )
        .await
        .unwrap();
    assert!(gate.wait_requested(Duration::from_secs(10)).await);

    let added = setup
        .server
        .request(
            "thread/queue/add",
            json!({"threadId": setup.thread_id, "clientUserMessageId": "c2",
                   "input": [{"type": "text", "text": "second"}]}),
        )
        .await
        .unwrap();
    let submission = added["queuedSubmission"].clone();
    assert_eq!(submission["clientUserMessageId"], "c2");
    assert_eq!(
        submission["input"],
        json!([{"type": "text", "text": "second"}])
    );
    assert_eq!(submission["responsesapiClientMetadata"], json!(null));
    let changed = setup.server.notification("thread/queue/changed").await;
    assert_eq!(changed, json!({"threadId": setup.thread_id}));
    let listed = setup
        .server
        .request("thread/queue/list", json!({"threadId": setup.thread_id}))
        .await
        .unwrap();
    assert_eq!(listed, json!({"data": [submission], "nextCursor": null}));

    gate.release_all();
    let first_turn = setup.server.until_turn_completed().await;
    assert_eq!(
        find(&first_turn, "turn/completed")[0]["params"]["turn"]["status"],
        "completed"
    );
    let second_turn = setup.server.until_turn_completed().await;
    let methods: Vec<&str> = second_turn
        .iter()
        .filter_map(|message| message["method"].as_str())
        .collect();
    let changed_at = methods
        .iter()
        .position(|method| *method == "thread/queue/changed");
    let started_at = methods.iter().position(|method| *method == "turn/started");
    assert!(
        changed_at.is_some() && changed_at < started_at,
        "{methods:?}"
    );
    let user_message = find(&second_turn, "item/completed")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["type"] == "userMessage")
        .unwrap();
    assert_eq!(user_message["clientId"], "c2");
    assert_eq!(
        find(&second_turn, "turn/completed")[0]["params"]["turn"]["status"],
        "completed"
    );
    let listed = setup
        .server
        .request("thread/queue/list", json!({"threadId": setup.thread_id}))
        .await
        .unwrap();
    assert_eq!(listed, json!({"data": [], "nextCursor": null}));
    assert_eq!(setup.model.request_count(), 2);
}

#[tokio::test]
async fn on_an_idle_thread_the_input_starts_at_once_and_bad_requests_are_refused() {
    let mut setup = setup("never", "read-only").await;
    setup
        .model
        .push(MockResponse::sse(responses_text("msg_1", &["answer"])));
    let added = setup
        .server
        .request(
            "thread/queue/add",
            json!({"threadId": setup.thread_id, "clientUserMessageId": "c1",
                   "input": [{"type": "text", "text": "now"}]}),
        )
        .await
        .unwrap();
    assert_eq!(added["queuedSubmission"]["clientUserMessageId"], "c1");
    let turn = setup.server.until_turn_completed().await;
    assert_eq!(
        find(&turn, "turn/completed")[0]["params"]["turn"]["status"],
        "completed"
    );
    assert!(find(&turn, "thread/queue/changed").is_empty(), "{turn:#?}");

    let thread_id = setup.thread_id.clone();
    let cases = [
        (
            "thread/queue/add",
            json!({"threadId": thread_id, "clientUserMessageId": "c", "input": []}),
            "input must not be empty",
        ),
        (
            "thread/queue/add",
            json!({"threadId": "01a21c38-acbf-7ea3-9e6e-cdd8e293cd7c", "clientUserMessageId": "c",
                   "input": [{"type": "text", "text": "x"}]}),
            "thread not found: 01a21c38-acbf-7ea3-9e6e-cdd8e293cd7c",
        ),
        (
            "thread/queue/list",
            json!({"threadId": thread_id, "cursor": "zz"}),
            "invalid cursor: invalid digit found in string",
        ),
    ];
    for (method, params, message) in cases {
        let error = setup.server.request(method, params).await.unwrap_err();
        assert_eq!(
            error,
            json!({"code": -32600, "message": message}),
            "{method}"
        );
    }
}
