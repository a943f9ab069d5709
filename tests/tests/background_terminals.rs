//! `thread/backgroundTerminals/list` through the real binary: an `exec_command` still running
//! when its call returned is listed with its item and session, pages walk the list, and the
//! requests refused.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{done, run_turn, setup};
use pretty_assertions::assert_eq;
use serde_json::json;
use tandem_tests::mock_model::{MockResponse, responses_function_call};

fn background(call_id: &str, cmd: &str) -> MockResponse {
    let arguments = json!({"cmd": cmd, "login": false, "yield_time_ms": 250}).to_string();
    MockResponse::sse(responses_function_call(call_id, "exec_command", &arguments))
}

#[tokio::test]
async fn running_commands_are_listed_oldest_first_and_paged() {
    let mut setup = setup("never", "workspace-write").await;
    let empty = setup
        .server
        .request(
            "thread/backgroundTerminals/list",
            json!({"threadId": setup.thread_id}),
        )
        .await
        .unwrap();
    assert_eq!(empty, json!({"data": [], "nextCursor": null}));

    setup.model.push_all([
        background("call_a", "sleep 30"),
        background("call_b", "sleep 31"),
        done(),
    ]);
    run_turn(&mut setup, "start two", Vec::new()).await;
    let listed = setup
        .server
        .request(
            "thread/backgroundTerminals/list",
            json!({"threadId": setup.thread_id, "limit": 1}),
        )
        .await
        .unwrap();
    let first = &listed["data"][0];
    assert_eq!(first["itemId"], "call_a");
    assert!(
        first["command"].as_str().unwrap().contains("sleep 30"),
        "{first}"
    );
    assert_eq!(first["osPid"], json!(null));
    assert_eq!(listed["nextCursor"], "1");
    let rest = setup
        .server
        .request(
            "thread/backgroundTerminals/list",
            json!({"threadId": setup.thread_id, "cursor": "1"}),
        )
        .await
        .unwrap();
    assert_eq!(rest["data"].as_array().unwrap().len(), 1);
    assert_eq!(rest["data"][0]["itemId"], "call_b");
    assert_eq!(rest["nextCursor"], json!(null));
    assert_ne!(first["processId"], rest["data"][0]["processId"]);

    let error = setup
        .server
        .request(
            "thread/backgroundTerminals/list",
            json!({"threadId": setup.thread_id, "cursor": "zz"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "invalid cursor: invalid digit found in string"})
    );
    let error = setup
        .server
        .request(
            "thread/backgroundTerminals/list",
            json!({"threadId": "01a21c38-acbf-7ea3-9e6e-cdd8e293cd7c"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "thread not found: 01a21c38-acbf-7ea3-9e6e-cdd8e293cd7c"})
    );
}
