//! Approvals through the MCP server, end to end with the offline `demo` provider: its tour
//! runs `uname -srm` (approval needed under `untrusted`) and proposes a patch adding
//! `tandem-demo.txt`. Elicitations are answered in the spec's and in Codex's shape, declined,
//! left to the fallback, and cancelled; over stdio and over HTTP.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, McpStdio, SseReader};

const DEMO_CONFIG: &str = "model_provider = \"demo\"\napproval_policy = \"untrusted\"\n";
const DEMO_FILE: &str = "tandem-demo.txt";

fn codex_call(id: i64, cwd: &Path) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "codex", "arguments": {
            "prompt": "Show me what you can do.",
            "cwd": cwd.to_string_lossy(),
            "approval-policy": "untrusted",
            "sandbox": "workspace-write",
        }},
    })
}

fn is_elicitation(message: &Value) -> bool {
    message["method"] == "elicitation/create"
}

fn is_response_to(message: &Value, id: i64) -> bool {
    message.get("method").is_none() && message["id"] == json!(id)
}

/// Runs one `codex` call over stdio, answering each elicitation with `answer`; returns the
/// elicitations and the response.
async fn run_with_answers(
    server: &mut McpStdio,
    id: i64,
    cwd: &Path,
    answer: impl Fn(&Value) -> Value,
) -> (Vec<Value>, Value) {
    server.send(&codex_call(id, cwd)).await;
    let mut elicitations = Vec::new();
    loop {
        let message = server
            .take(|message| is_elicitation(message) || is_response_to(message, id))
            .await;
        if is_response_to(&message, id) {
            return (elicitations, message);
        }
        let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": answer(&message)});
        server.send(&reply).await;
        elicitations.push(message);
    }
}

/// The `exec_command_end` event of the turn's command.
fn command_item(server: &McpStdio) -> Value {
    server
        .log
        .iter()
        .find(|message| {
            message["method"] == "codex/event"
                && message["params"]["msg"]["type"] == "exec_command_end"
        })
        .map(|message| message["params"]["msg"].clone())
        .expect("an exec_command_end event")
}

/// The `type`s of the `codex/event`s and the methods of the elicitations, in wire order.
fn wire_order(server: &McpStdio) -> Vec<String> {
    server
        .log
        .iter()
        .filter_map(|message| match message["method"].as_str() {
            Some("codex/event") => message["params"]["msg"]["type"]
                .as_str()
                .map(str::to_string),
            Some("elicitation/create") => Some("elicitation/create".to_string()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn accepted_elicitations_run_the_command_and_write_the_patch() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server
        .initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    // The command is accepted in the spec's shape, the patch in Codex's.
    let (elicitations, response) = run_with_answers(&mut server, 3, workspace.path(), |request| {
        match request["params"]["_meta"]["codex_elicitation"].as_str() {
            Some("exec-approval") => {
                json!({"action": "accept", "content": {"decision": "approved"}})
            }
            _ => json!({"decision": "approved"}),
        }
    })
    .await;

    let kinds: Vec<&str> = elicitations
        .iter()
        .map(|request| {
            request["params"]["_meta"]["codex_elicitation"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(kinds.contains(&"exec-approval"), "{kinds:?}");
    let exec = elicitations
        .iter()
        .find(|request| request["params"]["_meta"]["codex_elicitation"] == "exec-approval")
        .unwrap();
    let params = &exec["params"];
    // The engine runs the model's command through the user's shell.
    assert_eq!(params["_meta"]["codex_command"][2], "uname -srm");
    assert_eq!(params["_meta"]["codex_command"][1], "-c");
    assert_eq!(params["_meta"]["codex_mcp_tool_call_id"], 3);
    // Codex's own fields at the top level too, with `codex mcp-server`'s types.
    assert_eq!(params["codex_elicitation"], "exec-approval");
    assert_eq!(params["codex_mcp_tool_call_id"], "3");
    assert_eq!(params["threadId"], params["_meta"]["threadId"]);
    assert_eq!(params["codex_call_id"], params["_meta"]["codex_call_id"]);
    assert_eq!(params["codex_command"][1], "-c");
    assert_eq!(params["codex_command"][2], "uname -srm");
    assert_eq!(params["codex_cwd"], params["_meta"]["codex_cwd"]);
    assert_eq!(
        params["codex_parsed_cmd"],
        json!([{"type": "unknown", "cmd": "uname -srm"}])
    );
    let patch = elicitations
        .iter()
        .find(|request| request["params"]["codex_elicitation"] == "patch-approval")
        .expect("a patch approval");
    let patch_path = workspace.path().join(DEMO_FILE).display().to_string();
    assert_eq!(patch["params"]["codex_mcp_tool_call_id"], "3");
    assert_eq!(
        patch["params"]["codex_changes"][&patch_path]["type"], "add",
        "{patch}"
    );
    assert_eq!(
        params["requestedSchema"]["properties"]["decision"]["enum"],
        json!(["approved", "approved_for_session", "denied", "abort"])
    );
    assert_eq!(params["requestedSchema"]["required"], json!(["decision"]));
    let message = params["message"].as_str().unwrap();
    assert!(
        message.starts_with("Allow Tandem to run `") && message.contains("uname -srm"),
        "{message}"
    );
    assert!(
        params.get("mode").is_none(),
        "2025-06-18 has no elicitation mode"
    );

    let result = &response["result"];
    assert_eq!(result["isError"], false, "{result}");
    let item = command_item(&server);
    assert_eq!(item["status"], "completed", "{item}");
    let uname = std::process::Command::new("uname")
        .arg("-srm")
        .output()
        .unwrap();
    let output = item["aggregated_output"].as_str().unwrap_or_default();
    assert!(
        output.contains(String::from_utf8_lossy(&uname.stdout).trim()),
        "{item}"
    );
    assert!(
        workspace.path().join(DEMO_FILE).exists(),
        "the patch was written"
    );
    // Codex's order: the approval event, the question, then the command (and the same for
    // the patch), as spec/codex-events.md observed.
    let order = wire_order(&server);
    let position = |kind: &str| {
        order
            .iter()
            .position(|entry| entry == kind)
            .unwrap_or_else(|| panic!("no {kind} in {order:?}"))
    };
    let exec_asked = position("exec_approval_request");
    assert_eq!(order[exec_asked + 1], "elicitation/create", "{order:?}");
    assert_eq!(order[exec_asked + 2], "exec_command_begin", "{order:?}");
    assert!(position("exec_command_end") > exec_asked + 2, "{order:?}");
    let patch_asked = position("apply_patch_approval_request");
    assert_eq!(
        order[patch_asked + 1..patch_asked + 4],
        ["elicitation/create", "patch_apply_begin", "patch_apply_end"],
        "{order:?}"
    );
    let asked = server
        .log
        .iter()
        .find(|message| message["params"]["msg"]["type"] == "exec_approval_request")
        .unwrap();
    assert_eq!(params["codex_event_id"], asked["params"]["id"], "{asked}");
    let asked = &asked["params"]["msg"];
    assert_eq!(asked["kind"], "command");
    assert_eq!(asked["environmentId"], "local");
    assert_eq!(asked["command"][1], "-c");
    assert_eq!(asked["command"][2], "uname -srm");
    assert_eq!(
        asked["parsed_cmd"],
        json!([{"type": "unknown", "cmd": "uname -srm"}])
    );
    assert_eq!(asked["available_decisions"][0], "approved");
    let patched = server
        .log
        .iter()
        .find(|message| message["params"]["msg"]["type"] == "patch_apply_end")
        .unwrap();
    let patched = &patched["params"]["msg"];
    assert_eq!(patched["success"], true);
    assert_eq!(patched["status"], "completed");
    let path = workspace.path().join(DEMO_FILE).display().to_string();
    assert_eq!(patched["changes"][&path]["type"], "add", "{patched}");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn declined_elicitations_run_nothing() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server
        .initialize("2025-11-25", json!({"elicitation": {"form": {}}}))
        .await;
    let (elicitations, response) = run_with_answers(
        &mut server,
        4,
        workspace.path(),
        |_| json!({"action": "decline"}),
    )
    .await;
    assert!(!elicitations.is_empty());
    // 2025-11-25: form mode and titled variants.
    assert!(
        elicitations
            .iter()
            .all(|request| request["params"]["mode"] == "form")
    );
    let exec = &elicitations[0]["params"]["requestedSchema"]["properties"]["decision"];
    assert_eq!(
        exec["oneOf"][0],
        json!({"const": "approved", "title": "Approve"})
    );
    assert_eq!(response["result"]["isError"], false);
    let item = command_item(&server);
    assert_eq!(item["status"], "declined", "{item}");
    assert!(
        !workspace.path().join(DEMO_FILE).exists(),
        "a declined patch is not written"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn without_elicitation_the_fallback_decides_and_the_result_says_so() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    let (elicitations, response) = run_with_answers(
        &mut server,
        5,
        workspace.path(),
        |_| json!({"action": "accept"}),
    )
    .await;
    assert_eq!(
        elicitations,
        Vec::<Value>::new(),
        "no elicitation without the capability"
    );
    let content = response["result"]["content"].as_array().unwrap();
    let texts: Vec<&str> = content
        .iter()
        .map(|block| block["text"].as_str().unwrap())
        .collect();
    assert!(
        texts[0].starts_with("Tour finished (scripted demo)"),
        "{texts:?}"
    );
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(
        texts[1].starts_with("Approval was required for running `")
            && texts[1].contains("uname -srm")
            && texts[1].ends_with("; this MCP client does not support elicitation, so it was declined (approval fallback: decline)."),
        "{texts:?}"
    );
    assert_eq!(
        texts[2],
        "Approval was required for applying file changes; this MCP client does not support elicitation, so it was declined (approval fallback: decline)."
    );
    assert_eq!(command_item(&server)["status"], "declined");
    assert!(!workspace.path().join(DEMO_FILE).exists());
    assert_eq!(server.shutdown().await, Some(0));

    // With `--approval-fallback approve` the same turn runs everything.
    let mut server = McpStdio::spawn(DEMO_CONFIG, &["--approval-fallback", "approve"]).await;
    server.initialize("2025-06-18", json!({})).await;
    let (_, response) = run_with_answers(
        &mut server,
        6,
        workspace.path(),
        |_| json!({"action": "decline"}),
    )
    .await;
    let texts = response["result"]["content"].to_string();
    assert!(
        texts.contains("so it was approved (approval fallback: approve)"),
        "{texts}"
    );
    assert_eq!(command_item(&server)["status"], "completed");
    assert!(workspace.path().join(DEMO_FILE).exists());
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn cancelling_the_call_withdraws_its_pending_elicitation() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server
        .initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    server.send(&codex_call(7, workspace.path())).await;
    let elicitation = server.take(is_elicitation).await;
    server
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}))
        .await;
    let withdrawn = server
        .take(|message| message["method"] == "notifications/cancelled")
        .await;
    assert_eq!(withdrawn["params"]["requestId"], elicitation["id"]);
    let completed = server
        .take(|message| {
            message["method"] == "codex/event" && message["params"]["msg"]["type"] == "turn_aborted"
        })
        .await;
    assert_eq!(completed["params"]["msg"]["reason"], "interrupted");
    // A late answer is ignored, the session goes on, and the call never gets a response.
    server
        .send(&json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {"action": "accept"}}))
        .await;
    let pong = server.request(json!(8), "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    assert!(server.log.iter().all(|message| !is_response_to(message, 7)));
    assert_eq!(command_item_status(&server), None, "the command never ran");
    assert_eq!(server.shutdown().await, Some(0));
}

fn command_item_status(server: &McpStdio) -> Option<Value> {
    server
        .log
        .iter()
        .find(|message| {
            message["params"]["msg"]["type"] == "exec_command_end"
                && message["params"]["msg"]["status"] == "completed"
        })
        .map(|message| message["params"]["msg"]["status"].clone())
}

#[tokio::test]
async fn over_http_elicitations_arrive_on_the_call_stream_and_are_answered_by_post() {
    let workspace = tempfile::tempdir().unwrap();
    let server = McpHttp::spawn(DEMO_CONFIG, &[]).await;
    let (session, _) = server
        .initialize("2025-11-25", json!({"elicitation": {"form": {}}}))
        .await;
    let response = server
        .post(Some(&session), &codex_call(11, workspace.path()))
        .send()
        .await
        .unwrap();
    let mut stream = SseReader::new(response);
    let mut answered = 0;
    let result = loop {
        let event = stream.next().await.expect("stream ends after the response");
        let message = event.json();
        if is_elicitation(&message) {
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"action": "accept", "content": {"decision": "approved"}}});
            let posted = server.post(Some(&session), &answer).send().await.unwrap();
            assert_eq!(posted.status(), 202);
            answered += 1;
        } else if is_response_to(&message, 11) {
            break message;
        }
    };
    assert!(answered >= 1);
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert!(workspace.path().join(DEMO_FILE).exists());
    assert!(
        stream.next().await.is_none(),
        "the POST stream ends after the response"
    );
}

#[tokio::test]
async fn approved_for_session_is_not_asked_again_in_the_next_turn() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server
        .initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    let (first, response) = run_with_answers(
        &mut server,
        21,
        workspace.path(),
        |_| json!({"action": "accept", "content": {"decision": "approved_for_session"}}),
    )
    .await;
    let exec_requests = |elicitations: &[Value]| {
        elicitations
            .iter()
            .filter(|request| request["params"]["_meta"]["codex_elicitation"] == "exec-approval")
            .count()
    };
    assert_eq!(exec_requests(&first), 1);
    let thread_id = response["result"]["structuredContent"]["threadId"].clone();

    // The same tour again on the same thread: the command is not asked about twice.
    server
        .send(&json!({
            "jsonrpc": "2.0", "id": 22, "method": "tools/call",
            "params": {"name": "codex-reply", "arguments": {"threadId": thread_id, "prompt": "Again."}},
        }))
        .await;
    let mut second = Vec::new();
    loop {
        let message = server
            .take(|message| is_elicitation(message) || is_response_to(message, 22))
            .await;
        if is_response_to(&message, 22) {
            assert_eq!(message["result"]["isError"], false, "{message}");
            break;
        }
        let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"action": "accept"}});
        server.send(&reply).await;
        second.push(message);
    }
    assert_eq!(exec_requests(&second), 0, "{second:?}");
    // ... yet it ran in both turns.
    let runs = server
        .log
        .iter()
        .filter(|message| {
            message["params"]["msg"]["type"] == "exec_command_end"
                && message["params"]["msg"]["status"] == "completed"
        })
        .count();
    assert_eq!(runs, 2);
    assert_eq!(server.shutdown().await, Some(0));
}
