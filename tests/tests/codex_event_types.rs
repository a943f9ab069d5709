//! One transcript test per `codex/event` type that a plain turn does not produce: reasoning
//! (`agent_reasoning_delta`, `agent_reasoning`), `plan_update`, `turn_diff`, `error`, and
//! `warning`, each driven from the mock model through `tandem mcp-server` over real stdio and
//! compared field by field with Codex's `EventMsg` shape (`spec/codex-events.md`, and Codex's
//! `protocol` crate for the types that document has no example of): the same field names,
//! the same JSON types, the same nesting. Ids, times and texts may differ.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use app_server_protocol::codex_event::EventMsg;
use common::tool_turns::{config, done, patch};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::McpStdio;
use tandem_tests::mock_model::{MockModel, MockResponse, ResponsesStream};

/// The shape of a JSON value: every leaf replaced by its type name, arrays by the shape of
/// their first element.
fn shape(value: &Value) -> Value {
    match value {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("boolean"),
        Value::Number(_) => json!("number"),
        Value::String(_) => json!("string"),
        Value::Array(items) => Value::Array(items.iter().take(1).map(shape).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, value)| {
                    // The tag is compared by value.
                    let field = if key == "type" {
                        value.clone()
                    } else {
                        shape(value)
                    };
                    (key.clone(), field)
                })
                .collect(),
        ),
    }
}

/// Runs one `tools/call` to its response; every `codex/event` `msg` of the call, in order.
async fn run_call(server: &mut McpStdio, id: i64, tool: &str, arguments: Value) -> Vec<Value> {
    server
        .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}))
        .await;
    let mut events = Vec::new();
    loop {
        let message = server.next().await;
        if message["method"] == "codex/event" {
            assert_eq!(message["params"]["_meta"]["requestId"], id, "{message}");
            events.push(message["params"]["msg"].clone());
        } else if message.get("method").is_none() && message["id"] == id {
            return events;
        }
    }
}

fn first<'a>(events: &'a [Value], kind: &str) -> &'a Value {
    events
        .iter()
        .find(|event| event["type"] == kind)
        .unwrap_or_else(|| panic!("no `{kind}` event in {events:#?}"))
}

#[tokio::test]
async fn reasoning_plan_diff_and_error_events_have_codex_shapes() {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let cwd = workspace.path().to_str().unwrap().to_string();
    let plan = json!({"explanation": "Two steps.", "plan": [
        {"step": "Write the file", "status": "in_progress"},
        {"step": "Check it", "status": "pending"},
    ]});
    model.push_all([
        MockResponse::sse(
            ResponsesStream::new()
                .reasoning_summary("rs_1", &["Thinking ", "it over"])
                .function_call("call_plan", "update_plan", &plan.to_string())
                .frames(),
        ),
        patch(
            "call_patch",
            "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n",
        ),
        done(),
    ]);
    let config_toml = config(
        &model.base_url(),
        "never",
        "danger-full-access",
        "responses",
    );
    let mut server = McpStdio::spawn(&config_toml, &[]).await;
    server.initialize("2025-06-18", json!({})).await;

    let events = run_call(
        &mut server,
        1,
        "codex",
        json!({"prompt": "plan and write", "cwd": cwd}),
    )
    .await;
    let types: Vec<&str> = events
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    // Reasoning comes as Codex sends it: deltas, then the whole summary.
    let reasoning: Vec<&str> = types
        .iter()
        .copied()
        .filter(|kind| kind.starts_with("agent_reasoning"))
        .collect();
    assert_eq!(
        reasoning,
        vec![
            "agent_reasoning_delta",
            "agent_reasoning_delta",
            "agent_reasoning"
        ]
    );
    let delta = first(&events, "agent_reasoning_delta");
    assert_eq!(
        shape(delta),
        json!({"type": "agent_reasoning_delta", "delta": "string"})
    );
    assert_eq!(delta["delta"], "Thinking ");
    let summary = first(&events, "agent_reasoning");
    assert_eq!(
        shape(summary),
        json!({"type": "agent_reasoning", "text": "string"})
    );
    assert_eq!(summary["text"], "Thinking it over");

    // `plan_update` is Codex's `UpdatePlanArgs`: snake_case statuses, as the model sent them.
    let update = first(&events, "plan_update");
    assert_eq!(
        shape(update),
        json!({"type": "plan_update", "explanation": "string", "plan": [{"step": "string", "status": "string"}]})
    );
    assert_eq!(update["explanation"], plan["explanation"]);
    assert_eq!(update["plan"], plan["plan"]);

    // `turn_diff` follows the patch.
    let patch_end = types.iter().position(|kind| *kind == "patch_apply_end");
    let diff_at = types.iter().position(|kind| *kind == "turn_diff");
    assert!(
        patch_end.is_some() && diff_at > patch_end,
        "turn_diff after patch_apply_end: {types:?}"
    );
    let diff = first(&events, "turn_diff");
    assert_eq!(
        shape(diff),
        json!({"type": "turn_diff", "unified_diff": "string"})
    );
    let unified = diff["unified_diff"].as_str().unwrap();
    assert!(unified.contains("+++ b/notes.txt"), "{unified}");
    assert!(unified.contains("+hello"), "{unified}");
    assert_eq!(types.last(), Some(&"task_complete"));
    let thread_id = events
        .iter()
        .find(|event| event["type"] == "session_configured")
        .map(|event| event["session_id"].as_str().unwrap().to_string())
        .unwrap();

    // A model error: `error` with the message, then the turn ends.
    model.push(MockResponse::sse(
        ResponsesStream::new().failed("the model fell over"),
    ));
    let events = run_call(
        &mut server,
        2,
        "codex-reply",
        json!({"threadId": thread_id, "prompt": "again"}),
    )
    .await;
    let error = first(&events, "error");
    assert_eq!(shape(error), json!({"type": "error", "message": "string"}));
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("the model fell over"),
        "{error}"
    );
    let types: Vec<&str> = events
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    let error_at = types.iter().position(|kind| *kind == "error").unwrap();
    assert_eq!(
        types.last(),
        Some(&"task_complete"),
        "a failed turn still completes, after its error: {types:?}"
    );
    assert!(error_at < types.len() - 1);
    assert_eq!(server.shutdown().await, Some(0));
}

/// `warning` as observed (`spec/codex-events.md`), against the typed `EventMsg` the
/// mapping emits for the engine's `warning` notification.
#[test]
fn the_warning_event_has_the_observed_shape() {
    let observed = json!({
        "type": "warning",
        "message": "Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."
    });
    let decoded: EventMsg = serde_json::from_value(observed.clone()).unwrap();
    assert_eq!(serde_json::to_value(&decoded).unwrap(), observed);
    assert_eq!(
        shape(
            &serde_json::to_value(EventMsg::Warning {
                message: "AGENTS.md truncated".into()
            })
            .unwrap()
        ),
        shape(&observed)
    );
}

/// An AGENTS.md cut at `project_doc_max_bytes` reaches an MCP client as the `codex/event`
/// `warning` of the first turn, compared field by field with the observed notification
/// (`spec/codex-events.md`): `_meta` with the call and the thread, the turn's id, and a `msg`
/// of `type` and `message` only.
#[tokio::test]
async fn a_truncated_agents_md_is_a_warning_event() {
    let model = MockModel::start().await;
    model.push(done());
    let workspace = tempfile::tempdir().unwrap();
    let cwd = workspace.path().to_str().unwrap().to_string();
    std::fs::write(workspace.path().join("AGENTS.md"), "y".repeat(64)).unwrap();
    let config_toml = format!(
        "project_doc_max_bytes = 16\n{}",
        config(
            &model.base_url(),
            "never",
            "danger-full-access",
            "responses"
        )
    );
    let mut server = McpStdio::spawn(&config_toml, &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "codex", "arguments": {"prompt": "hello", "cwd": cwd}}}))
        .await;
    let mut events = Vec::new();
    loop {
        let message = server.next().await;
        if message["method"] == "codex/event" {
            events.push(message);
        } else if message.get("method").is_none() && message["id"] == 7 {
            break;
        }
    }
    let kind = |event: &Value| event["params"]["msg"]["type"].as_str().unwrap().to_string();
    let thread_id = events[0]["params"]["_meta"]["threadId"].clone();
    let started = events
        .iter()
        .find(|event| kind(event) == "task_started")
        .unwrap();
    let turn_id = started["params"]["msg"]["turn_id"].clone();
    let warnings: Vec<&Value> = events
        .iter()
        .filter(|event| kind(event) == "warning")
        .collect();
    assert_eq!(
        warnings,
        [&json!({
            "jsonrpc": "2.0",
            "method": "codex/event",
            "params": {
                "_meta": {"requestId": 7, "threadId": thread_id},
                "msg": {
                    "type": "warning",
                    "message": format!("{cwd}/AGENTS.md was truncated to 16 of its 64 bytes: the project instructions are capped at project_doc_max_bytes (16 bytes)"),
                },
                "id": turn_id,
            }
        })]
    );
    // The same keys as the observed example, at every level.
    let observed = json!({"jsonrpc": "2.0", "method": "codex/event", "params": {
        "_meta": {"requestId": 2, "threadId": "01a2001a-a166-7b70-878c-eac67e302289"},
        "msg": {"type": "warning", "message": "Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."},
        "id": "01a2001a-a174-7a63-af31-74f50f05bce8"
    }});
    assert_eq!(shape(warnings[0]), shape(&observed));
    // It belongs to the turn: after `task_started`, before `task_complete`.
    let types: Vec<String> = events.iter().map(kind).collect();
    let at = |name: &str| types.iter().position(|kind| kind == name).unwrap();
    assert!(
        at("task_started") < at("warning") && at("warning") < at("task_complete"),
        "{types:?}"
    );
    assert_eq!(server.shutdown().await, Some(0));
}
