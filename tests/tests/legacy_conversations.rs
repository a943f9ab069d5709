//! The first-generation conversation API on `tandem app-server`, end to end against the mock
//! model over real HTTP: `newConversation`, `sendUserMessage` with its `codex/event`s,
//! `execCommandApproval` answered with `allow` / `deny`, `interruptConversation`,
//! `listConversations` / `thread/list`, `resumeConversation`, and the settings methods.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{config, done, exec};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer};

async fn spawn(model: &MockModel, approval: &str) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: format!(
            "# my defaults\n{}",
            config(
                &model.base_url(),
                approval,
                "danger-full-access",
                "responses"
            )
        ),
        args: Vec::new(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
}

fn event_type(message: &Value) -> Option<&str> {
    (message["method"] == "codex/event")
        .then(|| message["params"]["msg"]["type"].as_str())
        .flatten()
}

/// Reads until the conversation's turn ends (`task_complete` / `turn_aborted`), answering
/// legacy approvals with `decisions` in turn; every message read.
async fn run_conversation_turn(server: &mut TestServer, decisions: &[&str]) -> Vec<Value> {
    let mut decisions = decisions.iter();
    let mut seen = Vec::new();
    loop {
        let message = server.next_message().await;
        if message["method"] == "execCommandApproval" || message["method"] == "applyPatchApproval" {
            let decision = decisions.next().expect("an answer for the approval");
            server
                .send(&json!({"id": message["id"], "result": {"decision": decision}}))
                .await;
        }
        let end = matches!(event_type(&message), Some("task_complete" | "turn_aborted"));
        seen.push(message);
        if end {
            return seen;
        }
    }
}

#[tokio::test]
async fn a_conversation_streams_codex_events_and_is_a_thread() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["Hello", " there"],
    )));
    let mut server = spawn(&model, "never").await;
    let workspace = tempfile::tempdir().unwrap();
    let cwd = workspace.path().to_str().unwrap();

    let created = server
        .request(
            "newConversation",
            json!({"cwd": cwd, "approvalPolicy": "on-failure", "sandbox": "workspace-write"}),
        )
        .await
        .unwrap();
    let conversation_id = created["conversationId"].as_str().unwrap().to_string();
    assert_eq!(created["model"], "mock-model");
    assert!(
        created["rolloutPath"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{conversation_id}.jsonl"))
    );
    let configured = server
        .take_matching(|message| event_type(message) == Some("session_configured"))
        .await;
    let params = &configured["params"];
    assert_eq!(
        params["_meta"],
        json!({"requestId": null, "threadId": conversation_id})
    );
    assert_eq!(params["id"], "");
    assert_eq!(
        params["msg"]["approval_policy"], "on-request",
        "on-failure runs as on-request"
    );
    assert_eq!(params["msg"]["model"], "mock-model");
    assert_eq!(params["msg"]["model_provider_id"], "mock");
    assert_eq!(params["msg"]["cwd"], cwd);
    assert_eq!(
        params["msg"]["active_permission_profile"],
        json!({"id": ":workspace-write"})
    );

    let startup = server
        .take_matching(|message| event_type(message) == Some("mcp_startup_complete"))
        .await;
    assert_eq!(
        startup["params"]["msg"],
        json!({"type": "mcp_startup_complete", "ready": [], "failed": [], "cancelled": []})
    );
    let sent = server
        .send_request(
            "sendUserMessage",
            json!({"conversationId": conversation_id, "items": [{"type": "text", "data": {"text": "Hi"}}]}),
        )
        .await;
    assert_eq!(server.response(sent).await.unwrap(), json!({}));
    let messages = run_conversation_turn(&mut server, &[]).await;
    let events: Vec<&Value> = messages
        .iter()
        .filter(|message| event_type(message).is_some())
        .collect();
    let types: Vec<&str> = events
        .iter()
        .filter_map(|event| event_type(event))
        .collect();
    assert_eq!(
        types,
        vec![
            "task_started",
            "item_started",
            "item_completed",
            "user_message",
            "item_started",
            "agent_message_content_delta",
            "agent_message_content_delta",
            "item_completed",
            "agent_message",
            "token_count",
            "task_complete",
        ]
    );
    assert!(
        events.iter().all(|event| event["params"]["_meta"]
            == json!({"requestId": sent, "threadId": conversation_id}))
    );
    assert_eq!(
        events[3]["params"]["msg"]["message"], "Hi",
        "the legacy input item became the user message"
    );
    assert_eq!(
        events[10]["params"]["msg"]["last_agent_message"],
        "Hello there"
    );
    // The thread API's notifications come too.
    assert!(
        messages
            .iter()
            .any(|message| message["method"] == "turn/completed")
    );

    // A conversation is a thread, and the reverse.
    let listed = server
        .request("listConversations", json!({"pageSize": 10}))
        .await
        .unwrap();
    let item = &listed["items"][0];
    assert_eq!(item["conversationId"], json!(conversation_id));
    assert_eq!(item["preview"], "Hi");
    assert_eq!(item["modelProvider"], "mock");
    assert!(item["timestamp"].as_str().unwrap().ends_with('Z'));
    let threads = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(threads["data"][0]["id"], json!(conversation_id));
    let started = server
        .request("thread/start", json!({"cwd": cwd}))
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["From a thread"],
    )));
    let sent = server
        .send_request(
            "sendUserMessage",
            json!({"conversationId": thread_id, "items": [{"type": "text", "text": "flat input"}]}),
        )
        .await;
    assert_eq!(server.response(sent).await.unwrap(), json!({}));
    let messages = run_conversation_turn(&mut server, &[]).await;
    assert_eq!(
        messages.iter().filter_map(event_type).next_back(),
        Some("task_complete")
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn legacy_approvals_take_allow_and_deny() {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    model.push_all([
        exec("call_1", "touch allowed.txt && echo made-it"),
        exec("call_2", "touch denied.txt"),
        done(),
    ]);
    let mut server = spawn(&model, "untrusted").await;
    let created = server
        .request(
            "newConversation",
            json!({"cwd": workspace.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let conversation_id = created["conversationId"].as_str().unwrap().to_string();
    let sent = server
        .send_request(
            "sendUserMessage",
            json!({"conversationId": conversation_id, "items": [{"type": "text", "data": {"text": "go"}}]}),
        )
        .await;
    server.response(sent).await.unwrap();
    let messages = run_conversation_turn(&mut server, &["allow", "deny"]).await;
    assert!(workspace.path().join("allowed.txt").exists());
    assert!(!workspace.path().join("denied.txt").exists());

    let request = messages
        .iter()
        .find(|message| message["method"] == "execCommandApproval")
        .unwrap();
    assert_eq!(
        request["params"],
        json!({
            "conversationId": conversation_id, "callId": "call_1", "approvalId": null,
            "command": ["/bin/bash", "-c", "touch allowed.txt && echo made-it"],
            "cwd": workspace.path().to_str().unwrap(), "reason": null,
            "parsedCmd": [{"type": "unknown", "cmd": "touch allowed.txt && echo made-it"}],
        })
    );
    assert!(
        messages
            .iter()
            .all(|message| message["method"] != "item/commandExecution/requestApproval"),
        "a conversation is asked with the legacy request only"
    );
    // Codex's order around each question.
    let order: Vec<String> = messages
        .iter()
        .filter_map(|message| match event_type(message) {
            Some(kind) => Some(kind.to_string()),
            None if message["method"] == "execCommandApproval" => {
                Some("execCommandApproval".into())
            }
            None => None,
        })
        .filter(|kind| kind.starts_with("exec"))
        .collect();
    assert_eq!(
        order,
        vec![
            "exec_approval_request",
            "execCommandApproval",
            "exec_command_begin",
            "exec_command_output_delta",
            "exec_command_end",
            "exec_approval_request",
            "execCommandApproval",
            "exec_command_end",
        ]
    );
    let ends: Vec<&Value> = messages
        .iter()
        .filter(|message| event_type(message) == Some("exec_command_end"))
        .map(|message| &message["params"]["msg"])
        .collect();
    assert_eq!(ends[0]["status"], "completed");
    assert_eq!(ends[0]["aggregated_output"], "made-it\n");
    assert_eq!(ends[1]["status"], "declined");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn interrupt_conversation_answers_once_the_turn_stopped() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["never", " finished"]));
    model.push(response);
    let mut server = spawn(&model, "never").await;
    let created = server.request("newConversation", json!({})).await.unwrap();
    let conversation_id = created["conversationId"].as_str().unwrap().to_string();
    let none = server
        .request(
            "interruptConversation",
            json!({"conversationId": conversation_id}),
        )
        .await
        .unwrap_err();
    assert_eq!(none["message"], "no active turn to interrupt");
    let sent = server
        .send_request(
            "sendUserMessage",
            json!({"conversationId": conversation_id, "items": [{"type": "text", "data": {"text": "slow"}}]}),
        )
        .await;
    server.response(sent).await.unwrap();
    gate.release(1);
    server
        .take_matching(|message| event_type(message) == Some("task_started"))
        .await;
    let interrupt = server
        .send_request(
            "interruptConversation",
            json!({"conversationId": conversation_id}),
        )
        .await;
    let answer = server.response(interrupt).await.unwrap();
    assert_eq!(answer, json!({"abortReason": "interrupted"}));
    // The answer came after the turn's end.
    let interrupt_at = server
        .log
        .iter()
        .position(|message| message["id"] == interrupt && message.get("result").is_some())
        .unwrap();
    let aborted_at = server
        .log
        .iter()
        .position(|message| event_type(message) == Some("turn_aborted"))
        .unwrap();
    assert!(aborted_at < interrupt_at);
    assert_eq!(
        server.log[aborted_at]["params"]["msg"]["reason"],
        "interrupted"
    );
    drop(gate);
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn settings_methods_read_and_edit_config_toml() {
    let model = MockModel::start().await;
    let mut server = spawn(&model, "never").await;
    // No `params`, as first-generation clients send it.
    server
        .send(&json!({"id": "c", "method": "getUserSavedConfig"}))
        .await;
    let config = server.take_matching(|message| message["id"] == "c").await;
    assert_eq!(config["result"]["config"]["model"], "mock-model");
    assert_eq!(config["result"]["config"]["approvalPolicy"], "never");
    assert_eq!(
        config["result"]["config"]["sandboxMode"],
        "danger-full-access"
    );

    let set = server
        .request(
            "setDefaultModel",
            json!({"model": "other-model", "reasoningEffort": "high"}),
        )
        .await
        .unwrap();
    assert_eq!(set, json!({}));
    let written = std::fs::read_to_string(server.home.join("config.toml")).unwrap();
    assert!(
        written.starts_with("# my defaults\nmodel_provider = \"mock\"\nmodel = \"other-model\"\n"),
        "{written}"
    );
    assert!(
        written.contains("model_reasoning_effort = \"high\"\n"),
        "{written}"
    );
    assert!(written.contains("[model_providers.mock]\n"), "{written}");

    let agent = server.request("getUserAgent", json!({})).await.unwrap();
    assert!(
        agent["userAgent"]
            .as_str()
            .unwrap()
            .starts_with("example_client/0.169.0 ("),
        "{agent}"
    );
    let user = server.request("userInfo", json!({})).await.unwrap();
    assert_eq!(user, json!({"allegedUserEmail": null}));
    let exec = server
        .request(
            "execOneOffCommand",
            json!({"command": ["echo", "hi"], "sandboxPolicy": {"type": "dangerFullAccess"}}),
        )
        .await
        .unwrap();
    assert_eq!(exec, json!({"exitCode": 0, "stdout": "hi\n", "stderr": ""}));
    let empty = server
        .request("execOneOffCommand", json!({"command": []}))
        .await
        .unwrap_err();
    assert_eq!(empty["code"], -32600);
    assert_eq!(server.shutdown().await, Some(0));
}
