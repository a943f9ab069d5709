//! `thread/shellCommand` through the real binary: the user's command as a turn of its own with
//! one `commandExecution` item (`source: "userShell"`) and its output deltas, run under the
//! thread's sandbox (unlike the reference, which runs it with full access), its output in the
//! model's next request, the timeout, interrupt, and the requests refused.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{Setup, done, find, setup};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Sends `thread/shellCommand` and reads everything up to `turn/completed`.
async fn shell(setup: &mut Setup, command: &str, extra: Value) -> Vec<Value> {
    let mut params = json!({"threadId": setup.thread_id, "command": command});
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    let result = setup
        .server
        .request("thread/shellCommand", params)
        .await
        .unwrap();
    assert_eq!(result, json!({}));
    setup.server.until_turn_completed().await
}

fn command_item(messages: &[Value], method: &str) -> Value {
    find(messages, method)
        .into_iter()
        .map(|message| message["params"]["item"].clone())
        .find(|item| item["type"] == "commandExecution")
        .unwrap_or_else(|| panic!("no {method} commandExecution in {messages:#?}"))
}

#[tokio::test]
async fn a_user_command_is_a_turn_with_one_streamed_command_item() {
    let mut setup = setup("never", "workspace-write").await;
    let messages = shell(&mut setup, "echo hi; echo err >&2; exit 3", json!({})).await;
    let methods: Vec<&str> = messages
        .iter()
        .filter_map(|message| message["method"].as_str())
        .filter(|method| *method != "item/commandExecution/outputDelta")
        .collect();
    assert_eq!(
        methods,
        [
            "thread/status/changed",
            "turn/started",
            "item/started",
            "item/completed",
            "thread/status/changed",
            "turn/completed"
        ]
    );
    let started = command_item(&messages, "item/started");
    assert_eq!(started["source"], "userShell");
    assert_eq!(started["status"], "inProgress");
    assert_eq!(
        started["commandActions"],
        json!([{"type": "unknown", "command": "echo hi; echo err >&2; exit 3"}])
    );
    assert!(
        started["command"]
            .as_str()
            .unwrap()
            .ends_with("-lc 'echo hi; echo err >&2; exit 3'"),
        "{started}"
    );
    let completed = command_item(&messages, "item/completed");
    assert_eq!(completed["id"], started["id"]);
    assert_eq!(completed["status"], "failed");
    assert_eq!(completed["exitCode"], 3);
    let output = completed["aggregatedOutput"].as_str().unwrap();
    assert!(
        output.contains("hi\n") && output.contains("err\n"),
        "{output}"
    );
    let streamed: String = find(&messages, "item/commandExecution/outputDelta")
        .into_iter()
        .map(|message| {
            assert_eq!(message["params"]["itemId"], started["id"]);
            message["params"]["delta"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(streamed.len(), output.len(), "{streamed:?} vs {output:?}");
    let turn = &find(&messages, "turn/completed")[0]["params"]["turn"];
    assert_eq!(turn["status"], "completed");

    // The model's next request carries what the user ran and saw.
    setup.model.push(done());
    setup
        .server
        .request(
            "turn/start",
            json!({"threadId": setup.thread_id, "input": [{"type": "text", "text": "and now?"}]}),
        )
        .await
        .unwrap();
    setup.server.until_turn_completed().await;
    let request = setup.model.requests().pop().unwrap().to_string();
    assert!(request.contains("<user_shell_command>"), "{request}");
    assert!(request.contains("Exit code: 3"), "{request}");
}

#[tokio::test]
async fn the_command_runs_under_the_threads_sandbox() {
    let mut setup = setup("never", "read-only").await;
    let messages = shell(&mut setup, "touch made-by-shell && echo made", json!({})).await;
    let completed = command_item(&messages, "item/completed");
    assert_eq!(completed["status"], "failed", "{completed}");
    assert!(!setup.workspace.path().join("made-by-shell").exists());

    let mut setup = common::tool_turns::setup("never", "workspace-write").await;
    let messages = shell(&mut setup, "touch made-by-shell && echo made", json!({})).await;
    let completed = command_item(&messages, "item/completed");
    assert_eq!(completed["status"], "completed", "{completed}");
    assert_eq!(completed["exitCode"], 0);
    assert!(setup.workspace.path().join("made-by-shell").exists());
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_an_interrupt_ends_the_turn() {
    let mut setup = setup("never", "workspace-write").await;
    let messages = shell(&mut setup, "sleep 30", json!({"timeoutMs": 100})).await;
    let completed = command_item(&messages, "item/completed");
    assert_eq!(completed["status"], "failed");
    assert_eq!(completed["exitCode"], 124);
    assert!(
        completed["aggregatedOutput"]
            .as_str()
            .unwrap()
            .ends_with("[command timed out after 100 ms]"),
        "{completed}"
    );

    let result = setup
        .server
        .request(
            "thread/shellCommand",
            json!({"threadId": setup.thread_id, "command": "sleep 30"}),
        )
        .await
        .unwrap();
    assert_eq!(result, json!({}));
    let started = setup.server.notification("turn/started").await;
    let turn_id = started["turn"]["id"].clone();
    setup.server.notification("item/started").await;
    // A second command (or a compaction) waits for no turn: it is refused while one runs.
    let error = setup
        .server
        .request(
            "thread/shellCommand",
            json!({"threadId": setup.thread_id, "command": "echo again"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "cannot run a shell command while a turn is in progress"})
    );
    setup
        .server
        .request(
            "turn/interrupt",
            json!({"threadId": setup.thread_id, "turnId": turn_id}),
        )
        .await
        .unwrap();
    let messages = setup.server.until_turn_completed().await;
    let turn = &find(&messages, "turn/completed")[0]["params"]["turn"];
    assert_eq!(turn["status"], "interrupted");
}

#[tokio::test]
async fn bad_requests_are_refused() {
    let mut setup = setup("never", "workspace-write").await;
    let thread_id = setup.thread_id.clone();
    let cases = [
        (
            json!({"threadId": thread_id, "command": "  "}),
            "command must not be empty".to_string(),
        ),
        (
            json!({"threadId": thread_id, "command": "true", "timeoutMs": -1}),
            "timeoutMs must not be negative".to_string(),
        ),
        (
            json!({"threadId": thread_id, "command": "x".repeat(64 * 1024 + 1)}),
            "command is too long: 65537 bytes, at most 65536".to_string(),
        ),
        (
            json!({"threadId": "01a21c38-acbf-7ea3-9e6e-cdd8e293cd7c", "command": "true"}),
            "thread not found: 01a21c38-acbf-7ea3-9e6e-cdd8e293cd7c".to_string(),
        ),
    ];
    for (params, message) in cases {
        let error = setup
            .server
            .request("thread/shellCommand", params)
            .await
            .unwrap_err();
        assert_eq!(error, json!({"code": -32600, "message": message}));
    }
    let error = setup
        .server
        .request("thread/shellCommand", json!({"threadId": thread_id}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("missing field `command`"),
        "{error}"
    );
}
