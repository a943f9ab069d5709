//! Experimental gating of fields, enum values and methods, both ways: without
//! `capabilities.experimentalApi` each gets the reference's `-32600 "<descriptor> requires
//! experimentalApi capability"`; with it, each works (or, for a method Tandem does not
//! implement, answers `-32601`).

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{decision, done, find, run_turn_with, setup, tool_output};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call, responses_text};
use tandem_tests::server::{TestServer, mock_config};

/// A thread id that names no thread: gating comes before the thread is looked up.
const NO_THREAD: &str = "01a1ffd8-0000-7000-8000-000000000000";

fn granular(sandbox_approval: bool) -> Value {
    json!({"granular": {
        "sandbox_approval": sandbox_approval,
        "rules": true,
        "skill_approval": false,
        "request_permissions": false,
        "mcp_elicitations": true,
    }})
}

/// Every experimental request of this file, with the descriptor the refusal names.
fn gated_requests() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "thread/start",
            json!({"cwd": "/tmp", "persistExtendedHistory": true}),
            "thread/start.persistFullHistory",
        ),
        (
            "thread/resume",
            json!({"threadId": NO_THREAD, "persistExtendedHistory": true}),
            "thread/resume.persistFullHistory",
        ),
        (
            "thread/fork",
            json!({"threadId": NO_THREAD, "persistExtendedHistory": true}),
            "thread/fork.persistFullHistory",
        ),
        (
            "thread/list",
            json!({"projectId": "p"}),
            "thread/list.projectId",
        ),
        (
            "thread/list",
            json!({"projectId": null}),
            "thread/list.projectId",
        ),
        (
            "thread/list",
            json!({"parentThreadId": NO_THREAD}),
            "thread/list.parentThreadId",
        ),
        (
            "thread/list",
            json!({"ancestorThreadId": NO_THREAD}),
            "thread/list.ancestorThreadId",
        ),
        (
            "thread/list",
            json!({"sortKey": "recency_at"}),
            "threadSortKey.recency_at",
        ),
        (
            "thread/list",
            json!({"sortKey": "section_position"}),
            "threadSortKey.section_position",
        ),
        (
            "thread/start",
            json!({"cwd": "/tmp", "approvalPolicy": granular(true)}),
            "askForApproval.granular",
        ),
        (
            "thread/resume",
            json!({"threadId": NO_THREAD, "approvalPolicy": granular(true)}),
            "askForApproval.granular",
        ),
        (
            "thread/fork",
            json!({"threadId": NO_THREAD, "approvalPolicy": granular(true)}),
            "askForApproval.granular",
        ),
        (
            "turn/start",
            json!({"threadId": NO_THREAD, "input": [], "approvalPolicy": granular(false)}),
            "askForApproval.granular",
        ),
        (
            "thread/backgroundTerminals/clean",
            json!({"threadId": NO_THREAD}),
            "thread/backgroundTerminals/clean",
        ),
        (
            "fuzzyFileSearch/sessionStart",
            json!({"sessionId": "s", "roots": ["/tmp"]}),
            "fuzzyFileSearch/sessionStart",
        ),
        (
            "collaborationMode/list",
            json!({}),
            "collaborationMode/list",
        ),
    ]
}

#[tokio::test]
async fn without_the_capability_each_experimental_use_is_refused_by_name() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    for (method, params, descriptor) in gated_requests() {
        let error = server.request(method, params.clone()).await.unwrap_err();
        assert_eq!(
            error,
            json!({"code": -32600, "message": format!("{descriptor} requires experimentalApi capability")}),
            "{method} {params}"
        );
    }
    // The same fields at their stable values are not experimental uses.
    server
        .request(
            "thread/start",
            json!({"cwd": "/tmp", "persistExtendedHistory": false, "approvalPolicy": "never"}),
        )
        .await
        .unwrap();
    server
        .request("thread/list", json!({"sortKey": "updated_at"}))
        .await
        .unwrap();
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn with_the_capability_the_experimental_fields_decode_and_apply() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;

    let first = server
        .request(
            "thread/start",
            json!({"cwd": "/tmp", "persistExtendedHistory": true, "approvalPolicy": granular(false)}),
        )
        .await
        .unwrap();
    assert_eq!(first["approvalPolicy"], granular(false));
    let first_id = first["thread"]["id"].as_str().unwrap().to_string();
    let second_id = started_thread_with_a_turn(&mut server, &model, "second").await;
    let first_turn = run_one_turn(&mut server, &model, &first_id, "first, later").await;
    assert_eq!(first_turn, "completed");

    // `recency_at`: the thread with the latest activity first. `section_position`: the
    // threads of a section in the order they were put there (second, then first).
    const PINNED: &str = "01984de2-8f74-7c91-a3b2-5c5e937cf318";
    for thread_id in [&second_id, &first_id] {
        server
            .request(
                "thread/section/move",
                json!({"threadId": thread_id, "sectionId": PINNED}),
            )
            .await
            .unwrap();
    }
    for (params, expected) in [
        (
            json!({"sortKey": "recency_at"}),
            [first_id.as_str(), second_id.as_str()],
        ),
        (
            json!({"sortKey": "section_position", "sectionId": PINNED}),
            [second_id.as_str(), first_id.as_str()],
        ),
    ] {
        let listed = server.request("thread/list", params.clone()).await.unwrap();
        let ids: Vec<&str> = listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|thread| thread["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, expected, "{params}");
    }
    let page = server
        .request("thread/list", json!({"sortKey": "recency_at", "limit": 1}))
        .await
        .unwrap();
    assert_eq!(page["data"][0]["id"], first_id.as_str());
    let rest = server
        .request(
            "thread/list",
            json!({"sortKey": "recency_at", "cursor": page["nextCursor"]}),
        )
        .await
        .unwrap();
    assert_eq!(rest["data"][0]["id"], second_id.as_str());

    // No Tandem thread belongs to a project or has a parent thread.
    let unassigned = server
        .request("thread/list", json!({"projectId": null}))
        .await
        .unwrap();
    assert_eq!(unassigned["data"].as_array().unwrap().len(), 2);
    for filter in [
        json!({"projectId": "p"}),
        json!({"parentThreadId": first_id}),
        json!({"ancestorThreadId": first_id}),
    ] {
        let listed = server.request("thread/list", filter.clone()).await.unwrap();
        assert_eq!(listed["data"], json!([]), "{filter}");
        assert_eq!(listed["nextCursor"], Value::Null, "{filter}");
    }

    let resumed = server
        .request(
            "thread/resume",
            json!({"threadId": second_id, "persistExtendedHistory": true, "approvalPolicy": granular(true)}),
        )
        .await
        .unwrap();
    assert_eq!(resumed["approvalPolicy"], granular(true));
    let forked = server
        .request(
            "thread/fork",
            json!({"threadId": second_id, "persistExtendedHistory": true, "approvalPolicy": granular(false)}),
        )
        .await
        .unwrap();
    assert_eq!(forked["approvalPolicy"], granular(false));

    // Methods of the reference's experimental surface that Tandem does not serve.
    for (method, why) in [
        (
            "thread/realtime/start",
            "it uses a cloud service that this server does not connect to",
        ),
        (
            "userVerification/status",
            "it needs a ChatGPT or cloud account, and this server uses API keys only",
        ),
    ] {
        let error = server
            .request(method, json!({"threadId": second_id}))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            json!({"code": -32601, "message": format!("method not supported by this server: {method}: {why}")})
        );
    }
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_method_this_server_does_not_serve_gets_a_clear_error_not_a_decoding_failure() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    // A stable method: answered at once, whatever its params.
    let error = server.request("app/list", json!({})).await.unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32601, "message": "method not supported by this server: app/list: it uses a cloud service that this server does not connect to"})
    );
    let error = server
        .request("windowsSandbox/readiness", Value::Null)
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32601, "{error}");
    // An experimental one needs the capability first, as on the reference.
    let error = server
        .request("thread/realtime/start", json!({"threadId": "t"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "thread/realtime/start requires experimentalApi capability"})
    );
    // A name nobody serves is still a decoding failure.
    let error = server
        .request("no/such/method", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
    assert_eq!(server.shutdown().await, Some(0));
}

/// Starts a thread, runs one turn on it and returns its id.
async fn started_thread_with_a_turn(
    server: &mut TestServer,
    model: &MockModel,
    text: &str,
) -> String {
    let started = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        run_one_turn(server, model, &thread_id, text).await,
        "completed"
    );
    thread_id
}

/// Runs one text turn on `thread_id` and returns its final status.
async fn run_one_turn(
    server: &mut TestServer,
    model: &MockModel,
    thread_id: &str,
    text: &str,
) -> String {
    model.push(MockResponse::sse(responses_text("msg_1", &["ok"])));
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": text}]}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let completed = messages
        .iter()
        .find(|message| message["method"] == "turn/completed")
        .unwrap();
    completed["params"]["turn"]["status"]
        .as_str()
        .unwrap()
        .to_string()
}

/// An `exec_command` call that asks to run outside the sandbox.
fn escalated_exec(call_id: &str, cmd: &str) -> MockResponse {
    let arguments = json!({
        "cmd": cmd,
        "login": false,
        "yield_time_ms": 5000,
        "sandbox_permissions": "require_escalated",
        "justification": "needs to leave the sandbox",
    })
    .to_string();
    MockResponse::sse(responses_function_call(call_id, "exec_command", &arguments))
}

/// `granular` asks as `on-request` does while `sandbox_approval` is on, and refuses the
/// question without sending it to the client when it is off.
#[tokio::test]
async fn granular_sandbox_approval_decides_whether_an_escalation_is_asked() {
    let mut setup = setup("on-request", "workspace-write").await;
    setup
        .model
        .push_all([escalated_exec("call_1", "touch refused.txt"), done()]);
    // No answers: a server request would fail the turn loop.
    let messages = run_turn_with(
        &mut setup,
        json!({"approvalPolicy": granular(false)}),
        "leave the sandbox",
        Vec::new(),
    )
    .await;
    assert!(find(&messages, "item/commandExecution/requestApproval").is_empty());
    assert!(!setup.workspace.path().join("refused.txt").exists());
    let output = tool_output(&setup.model, "call_1");
    assert_eq!(
        output,
        "exec_command failed: running outside the sandbox needs the user's approval, and the granular approval policy has `sandbox_approval: false`"
    );

    setup
        .model
        .push_all([escalated_exec("call_2", "touch asked.txt"), done()]);
    let messages = run_turn_with(
        &mut setup,
        json!({"approvalPolicy": granular(true)}),
        "leave the sandbox again",
        vec![decision("decline")],
    )
    .await;
    let asked = find(&messages, "item/commandExecution/requestApproval");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["params"]["itemId"], "call_2");
    assert!(!setup.workspace.path().join("asked.txt").exists());
}
