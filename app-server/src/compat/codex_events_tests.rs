//! Unit tests of the engine-event → Codex-event mapping.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

fn notification(value: Value) -> ServerNotification {
    serde_json::from_value(value).expect("server notification")
}

fn messages(events: &mut CodexEvents, value: Value) -> Vec<Value> {
    events
        .translate(&notification(value))
        .into_iter()
        .map(|event| serde_json::to_value(event.msg).expect("json"))
        .collect()
}

#[test]
fn a_command_waiting_for_approval_begins_after_the_answer() {
    let mut events = CodexEvents::default();
    let status = |flags: Value| json!({"method": "thread/status/changed", "params": {"threadId": "t", "status": {"type": "active", "activeFlags": flags}}});
    assert_eq!(
        messages(&mut events, status(json!(["waitingOnApproval"]))),
        Vec::<Value>::new()
    );
    let item = json!({
        "type": "commandExecution", "id": "call_1", "command": "/bin/bash -c 'echo hi'",
        "cwd": "/w", "status": "inProgress", "commandActions": [{"type": "unknown", "command": "echo hi"}],
        "startedAtMs": 5,
    });
    let started = messages(
        &mut events,
        json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u", "startedAtMs": 5, "item": item}}),
    );
    assert_eq!(started, Vec::<Value>::new(), "begin waits for the answer");
    assert_eq!(
        messages(&mut events, status(json!([]))),
        Vec::<Value>::new()
    );
    let mut done = item;
    done["status"] = json!("completed");
    done["aggregatedOutput"] = json!("hi\n");
    done["exitCode"] = json!(0);
    done["durationMs"] = json!(1500);
    let completed = messages(
        &mut events,
        json!({"method": "item/completed", "params": {"threadId": "t", "turnId": "u", "completedAtMs": 9, "item": done}}),
    );
    assert_eq!(
        completed,
        vec![
            json!({
                "type": "exec_command_begin", "call_id": "call_1", "process_id": null, "turn_id": "u",
                "started_at_ms": 5, "command": ["/bin/bash", "-c", "echo hi"], "cwd": "file:///w",
                "parsed_cmd": [{"type": "unknown", "cmd": "echo hi"}], "source": "unified_exec_startup",
            }),
            json!({
                "type": "exec_command_end", "call_id": "call_1", "process_id": null, "turn_id": "u",
                "completed_at_ms": 9, "command": ["/bin/bash", "-c", "echo hi"], "cwd": "file:///w",
                "parsed_cmd": [{"type": "unknown", "cmd": "echo hi"}], "source": "agent",
                "stdout": "hi\n", "stderr": "", "aggregated_output": "hi\n", "exit_code": 0,
                "duration": {"secs": 1, "nanos": 500_000_000}, "formatted_output": "hi\n",
                "status": "completed",
            }),
        ]
    );
}

#[test]
fn a_declined_patch_ends_without_beginning() {
    let mut events = CodexEvents::default();
    let item = json!({
        "type": "fileChange", "id": "call_2", "status": "inProgress",
        "changes": [{"path": "/w/a.txt", "kind": {"type": "add"}, "diff": "hello\n"}],
    });
    assert!(
        messages(
            &mut events,
            json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u", "startedAtMs": 1, "item": item}}),
        )
        .is_empty()
    );
    let request = ApprovalRequest::FileChange(
        serde_json::from_value(
            json!({"threadId": "t", "turnId": "u", "itemId": "call_2", "startedAtMs": 2}),
        )
        .expect("params"),
    );
    let announced = events.approval(&request).expect("announcement");
    assert_eq!(
        serde_json::to_value(announced.msg).expect("json"),
        json!({
            "type": "apply_patch_approval_request", "call_id": "call_2", "turn_id": "u",
            "started_at_ms": 2, "changes": {"/w/a.txt": {"type": "add", "content": "hello\n"}},
        })
    );
    let mut declined = item;
    declined["status"] = json!("declined");
    let ended = messages(
        &mut events,
        json!({"method": "item/completed", "params": {"threadId": "t", "turnId": "u", "completedAtMs": 3, "item": declined}}),
    );
    assert_eq!(ended.len(), 1);
    assert_eq!(ended[0]["type"], "patch_apply_end");
    assert_eq!(ended[0]["status"], "declined");
    assert_eq!(ended[0]["success"], false);
}

#[test]
fn an_interrupted_turn_is_aborted() {
    let mut events = CodexEvents::default();
    let aborted = messages(
        &mut events,
        json!({"method": "turn/completed", "params": {"threadId": "t", "turn": {
            "id": "u", "items": [], "status": "interrupted", "startedAtMs": null,
            "startedAt": 10, "completedAt": 11, "durationMs": 900,
        }}}),
    );
    assert_eq!(
        aborted,
        vec![json!({
            "type": "turn_aborted", "turn_id": "u", "reason": "interrupted",
            "started_at": 10, "completed_at": 11, "duration_ms": 900,
        })]
    );
}

#[test]
fn compaction_terminal_interaction_and_item_progress_reach_their_thread() {
    let mut events = CodexEvents::default();
    let params = |extra: Value| {
        let mut params = json!({"threadId": "t", "turnId": "u"});
        for (key, value) in extra.as_object().expect("object") {
            params[key] = value.clone();
        }
        params
    };
    let cases = [
        (
            json!({"method": "thread/compacted", "params": params(json!({}))}),
            json!({"type": "context_compacted"}),
        ),
        (
            json!({"method": "item/commandExecution/terminalInteraction", "params": params(json!({"itemId": "call_1", "processId": "7", "stdin": "y\n"}))}),
            json!({"type": "terminal_interaction", "call_id": "call_1", "process_id": "7", "stdin": "y\n"}),
        ),
        (
            json!({"method": "item/plan/delta", "params": params(json!({"itemId": "u-plan", "delta": "- one\n"}))}),
            json!({"type": "plan_delta", "thread_id": "t", "turn_id": "u", "item_id": "u-plan", "delta": "- one\n"}),
        ),
        (
            json!({"method": "item/mcpToolCall/progress", "params": params(json!({"itemId": "call_2", "message": "half"}))}),
            json!({"type": "mcp_tool_call_progress", "call_id": "call_2", "message": "half"}),
        ),
        (
            json!({"method": "item/fileChange/patchUpdated", "params": params(json!({"itemId": "call_3", "changes": [
                {"path": "/w/a.txt", "kind": {"type": "add"}, "diff": "hi\n"}]}))}),
            json!({"type": "patch_apply_updated", "call_id": "call_3", "changes": {"/w/a.txt": {"type": "add", "content": "hi\n"}}}),
        ),
    ];
    for (wire, expected) in cases {
        let parsed = notification(wire.clone());
        assert_eq!(notification_thread(&parsed), Some("t"), "{wire}");
        let translated = events.translate(&parsed);
        assert_eq!(translated.len(), 1, "{wire}");
        assert_eq!(
            (translated[0].thread_id.as_str(), translated[0].id.as_str()),
            ("t", "u")
        );
        assert_eq!(
            serde_json::to_value(&translated[0].msg).expect("json"),
            expected
        );
    }
}
