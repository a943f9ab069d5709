//! Unit tests of the elicitation mapping.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

fn command_request() -> ApprovalRequest {
    ApprovalRequest::Command(
        serde_json::from_value(json!({
            "threadId": "thread-1",
            "turnId": "turn-1",
            "itemId": "call_1",
            "startedAtMs": 1,
            "command": "uname -srm",
            "cwd": "/work",
        }))
        .expect("command params"),
    )
}

fn file_change_request() -> ApprovalRequest {
    ApprovalRequest::FileChange(
        serde_json::from_value(json!({
            "threadId": "thread-1",
            "turnId": "turn-1",
            "itemId": "call_2",
            "startedAtMs": 1,
        }))
        .expect("file change params"),
    )
}

fn question_request() -> ApprovalRequest {
    ApprovalRequest::UserInput(
        serde_json::from_value(json!({
            "threadId": "thread-1",
            "turnId": "turn-1",
            "itemId": "call_3",
            "isBlocking": true,
            "questions": [
                {"id": "color", "header": "Color", "question": "Which color?", "options": [
                    {"label": "red", "description": "warm"},
                    {"label": "blue", "description": "cool"},
                ]},
                {"id": "name", "header": "Name", "question": "What name?"},
            ],
        }))
        .expect("question params"),
    )
}

/// The typed reply for a command decision, written as the app-server wire names it.
fn answered(decision: &str) -> ApprovalReply {
    ApprovalReply::Answered(ApprovalAnswer::Command(
        serde_json::from_value(json!(decision)).expect("decision"),
    ))
}

fn answered_file_change(decision: FileChangeApprovalDecision) -> ApprovalReply {
    ApprovalReply::Answered(ApprovalAnswer::FileChange(decision))
}

fn answers(pairs: &[(&str, &str)]) -> ApprovalReply {
    ApprovalReply::Answered(ApprovalAnswer::UserInput(ToolRequestUserInputResponse {
        answers: pairs
            .iter()
            .map(|(id, answer)| {
                (
                    id.to_string(),
                    ToolRequestUserInputAnswer {
                        answers: vec![answer.to_string()],
                    },
                )
            })
            .collect(),
    }))
}

#[test]
fn a_command_approval_is_a_spec_valid_form_with_codex_details_in_meta() {
    let call = RequestId::Integer(3);
    let params = elicitation_params(&command_request(), Some(&call), "2025-06-18", None);
    assert_eq!(
        params,
        json!({
            "message": "Allow Tandem to run `uname -srm` in /work?",
            "requestedSchema": {
                "type": "object",
                "properties": {"decision": {
                    "type": "string",
                    "title": "Decision",
                    "enum": ["approved", "approved_for_session", "denied", "abort"],
                    "enumNames": [
                        "Approve",
                        "Approve for the rest of this conversation",
                        "Deny (the agent goes on without it)",
                        "Deny and stop the turn",
                    ],
                }},
                "required": ["decision"],
            },
            "_meta": {
                "threadId": "thread-1",
                "turnId": "turn-1",
                "codex_mcp_tool_call_id": 3,
                "codex_elicitation": "exec-approval",
                "codex_call_id": "call_1",
                "codex_command": ["uname", "-srm"],
                "codex_cwd": "/work",
            },
        })
    );
}

/// The announcing `codex/event` of `request`, as the session sends it for call 3.
fn announced(request: &ApprovalRequest) -> Value {
    let event = crate::compat::codex_events::CodexEvents::default()
        .approval(request)
        .expect("an approval event");
    crate::mcp::events::event_message(event, Some(&RequestId::Integer(3)))
}

#[test]
fn approvals_carry_codex_fields_at_the_top_level_too() {
    let request = command_request();
    let call = RequestId::Integer(3);
    let params = elicitation_params(
        &request,
        Some(&call),
        "2025-06-18",
        Some(&announced(&request)),
    );
    let mut top: Vec<&str> = params
        .as_object()
        .expect("params")
        .keys()
        .map(String::as_str)
        .collect();
    top.sort_unstable();
    let mut expected = vec![
        "message",
        "requestedSchema",
        "threadId",
        "codex_elicitation",
        "codex_mcp_tool_call_id",
        "codex_event_id",
        "codex_call_id",
        "codex_command",
        "codex_cwd",
        "codex_parsed_cmd",
        "_meta",
    ];
    expected.sort_unstable();
    assert_eq!(top, expected);
    // The reference's types at the top level: the tool call id is a string there.
    assert_eq!(params["codex_mcp_tool_call_id"], "3");
    assert_eq!(params["codex_event_id"], "turn-1");
    assert_eq!(params["codex_elicitation"], "exec-approval");
    assert_eq!(params["codex_call_id"], "call_1");
    assert_eq!(params["codex_cwd"], "/work");
    assert_eq!(params["codex_parsed_cmd"], json!([]));
    assert!(params["codex_command"].is_array(), "{params}");
    // The `_meta` copy keeps its types.
    assert_eq!(params["_meta"]["codex_mcp_tool_call_id"], 3);

    let string_call = RequestId::String("call-a".into());
    let params = elicitation_params(
        &request,
        Some(&string_call),
        "2025-06-18",
        Some(&announced(&request)),
    );
    assert_eq!(params["codex_mcp_tool_call_id"], "call-a");

    let patch = file_change_request();
    let params = elicitation_params(&patch, Some(&call), "2025-11-25", Some(&announced(&patch)));
    assert_eq!(params["codex_elicitation"], "patch-approval");
    assert_eq!(params["codex_changes"], json!({}));
    assert!(params.get("codex_reason").is_none(), "{params}");
    assert!(params.get("codex_command").is_none(), "{params}");

    // Questions have no Codex top-level fields.
    let params = elicitation_params(&question_request(), Some(&call), "2025-06-18", None);
    assert!(params.get("codex_elicitation").is_none(), "{params}");
}

#[test]
fn version_2025_11_25_gets_form_mode_and_titled_variants() {
    let params = elicitation_params(&file_change_request(), None, "2025-11-25", None);
    assert_eq!(params["mode"], "form");
    let decision = &params["requestedSchema"]["properties"]["decision"];
    assert_eq!(
        decision["oneOf"][0],
        json!({"const": "approved", "title": "Approve"})
    );
    assert_eq!(decision["oneOf"].as_array().map(Vec::len), Some(4));
    assert_eq!(params["_meta"]["codex_elicitation"], "patch-approval");
    // Every property of a form schema is a primitive.
    for property in params["requestedSchema"]["properties"]
        .as_object()
        .expect("properties")
        .values()
    {
        assert_eq!(property["type"], "string");
    }
}

#[test]
fn spec_and_codex_answer_shapes_map_to_engine_decisions() {
    let request = command_request();
    let cases: Vec<(Result<Value, Value>, ApprovalReply)> = vec![
        (
            Ok(json!({"action": "accept", "content": {"decision": "approved"}})),
            answered("accept"),
        ),
        (
            Ok(json!({"action": "accept", "content": {"decision": "approved_for_session"}})),
            answered("acceptForSession"),
        ),
        (
            Ok(json!({"action": "accept", "content": {"decision": "denied"}})),
            answered("decline"),
        ),
        (
            Ok(json!({"action": "accept", "content": {"decision": "abort"}})),
            answered("cancel"),
        ),
        (Ok(json!({"action": "accept"})), answered("accept")),
        (
            Ok(json!({"action": "accept", "content": {}})),
            answered("accept"),
        ),
        (Ok(json!({"action": "decline"})), answered("decline")),
        (Ok(json!({"action": "cancel"})), answered("cancel")),
        (Ok(json!({"decision": "approved"})), answered("accept")),
        (Ok(json!({"decision": "denied"})), answered("decline")),
        (Ok(json!({"decision": "abort"})), answered("cancel")),
        (
            Ok(json!({"decision": "acceptForSession"})),
            answered("acceptForSession"),
        ),
        (
            Err(json!({"code": -32601, "message": "no"})),
            answered("cancel"),
        ),
        (
            Ok(json!({"decision": "maybe"})),
            ApprovalReply::Failed("unknown decision `maybe`".into()),
        ),
        (
            Ok(json!({})),
            ApprovalReply::Failed("elicitation answer has neither `action` nor `decision`".into()),
        ),
    ];
    for (answer, expected) in cases {
        assert_eq!(
            reply_from_answer(&request, answer.clone()),
            expected,
            "{answer:?}"
        );
    }
}

#[test]
fn questions_become_one_string_property_each() {
    let params = elicitation_params(&question_request(), None, "2025-06-18", None);
    assert_eq!(
        params["requestedSchema"],
        json!({
            "type": "object",
            "properties": {
                "color": {"type": "string", "title": "Color", "description": "Which color?", "enum": ["red", "blue"]},
                "name": {"type": "string", "title": "Name", "description": "What name?"},
            },
            "required": ["color", "name"],
        })
    );
    let reply = reply_from_answer(
        &question_request(),
        Ok(json!({"action": "accept", "content": {"color": "blue", "name": "Ada"}})),
    );
    assert_eq!(reply, answers(&[("color", "blue"), ("name", "Ada")]));
    assert_eq!(
        reply_from_answer(&question_request(), Ok(json!({"action": "cancel"}))),
        ApprovalReply::Withdrawn
    );
    assert_eq!(
        reply_from_answer(&question_request(), Ok(json!({"action": "decline"}))),
        answers(&[])
    );
}

#[test]
fn without_elicitation_the_fallback_decides_and_explains() {
    let (reply, note) = fallback_reply(&command_request(), ApprovalFallback::Decline);
    assert_eq!(reply, answered("decline"));
    assert_eq!(
        note,
        "Approval was required for running `uname -srm`; this MCP client does not support elicitation, so it was declined (approval fallback: decline)."
    );
    let (reply, note) = fallback_reply(&file_change_request(), ApprovalFallback::Approve);
    assert_eq!(
        reply,
        answered_file_change(FileChangeApprovalDecision::Accept)
    );
    assert!(note.contains("applying file changes") && note.contains("approved"));
    let (reply, _) = fallback_reply(&question_request(), ApprovalFallback::Approve);
    assert_eq!(reply, answers(&[]));
}

#[test]
fn file_change_answers_map_to_file_change_decisions() {
    let request = file_change_request();
    let cases = [
        ("approved", FileChangeApprovalDecision::Accept),
        (
            "approved_for_session",
            FileChangeApprovalDecision::AcceptForSession,
        ),
        ("denied", FileChangeApprovalDecision::Decline),
        ("abort", FileChangeApprovalDecision::Cancel),
    ];
    for (name, decision) in cases {
        assert_eq!(
            reply_from_answer(
                &request,
                Ok(json!({"action": "accept", "content": {"decision": name}}))
            ),
            answered_file_change(decision),
            "{name}"
        );
    }
    assert_eq!(
        reply_from_answer(
            &question_request(),
            Ok(json!({"answers": {"name": {"answers": 3}}}))
        ),
        ApprovalReply::Failed(
            "unreadable `answers`: invalid type: integer `3`, expected a sequence".into()
        )
    );
}

fn tool_call_request() -> ApprovalRequest {
    ApprovalRequest::DynamicToolCall(
        serde_json::from_value(json!({
            "threadId": "thread-1",
            "turnId": "turn-1",
            "callId": "call_4",
            "namespace": "crm",
            "tool": "find",
            "arguments": {"name": "Ada"},
        }))
        .expect("tool call params"),
    )
}

fn tool_output(text: &str, success: bool) -> ApprovalReply {
    ApprovalReply::Answered(ApprovalAnswer::DynamicToolCall(DynamicToolCallResponse {
        content_items: vec![DynamicToolCallOutputContentItem::InputText { text: text.into() }],
        success,
    }))
}

#[test]
fn a_client_tool_call_is_a_form_asking_for_its_output() {
    let request = tool_call_request();
    let params = elicitation_params(&request, None, "2025-11-25", None);
    assert_eq!(
        params["message"],
        "The agent calls the client tool `crm/find` with {\"name\":\"Ada\"}. Give the tool's output."
    );
    assert_eq!(params["requestedSchema"]["required"], json!(["output"]));
    assert_eq!(params["_meta"]["codex_elicitation"], "dynamic-tool-call");
    assert_eq!(
        reply_from_answer(
            &request,
            Ok(json!({"action": "accept", "content": {"output": "Ada Lovelace"}}))
        ),
        tool_output("Ada Lovelace", true)
    );
    assert_eq!(
        reply_from_answer(&request, Ok(json!({"action": "decline"}))),
        tool_output("the user chose `decline`", false)
    );
    let (reply, note) = fallback_reply(&request, ApprovalFallback::Approve);
    assert_eq!(
        reply,
        ApprovalReply::Failed("nobody could run the client's tool".into())
    );
    assert!(note.contains("running the client tool `find`"), "{note}");
}

fn permissions_request() -> ApprovalRequest {
    ApprovalRequest::Permissions(
        serde_json::from_value(json!({
            "threadId": "thread-1",
            "turnId": "turn-1",
            "itemId": "call_5",
            "startedAtMs": 1,
            "cwd": "/work",
            "reason": "fetch the data",
            "permissions": {"network": {"enabled": true}, "fileSystem": {"write": ["/srv/out"]}},
        }))
        .expect("permissions params"),
    )
}

fn granted(everything: bool, scope: PermissionGrantScope) -> ApprovalReply {
    let permissions = if everything {
        serde_json::from_value(
            json!({"network": {"enabled": true}, "fileSystem": {"write": ["/srv/out"]}}),
        )
        .expect("grant")
    } else {
        GrantedPermissionProfile::default()
    };
    ApprovalReply::Answered(ApprovalAnswer::Permissions(
        PermissionsRequestApprovalResponse {
            permissions,
            scope,
            strict_auto_review: None,
        },
    ))
}

#[test]
fn a_permission_request_is_an_approval_granting_what_was_asked() {
    let request = permissions_request();
    let params = elicitation_params(&request, None, "2025-11-25", None);
    assert_eq!(
        params["message"],
        "Allow Tandem's commands more access than their sandbox gives, in /work: network access; write /srv/out? Reason: fetch the data"
    );
    assert_eq!(params["_meta"]["codex_elicitation"], "permissions-approval");
    assert_eq!(params["requestedSchema"]["required"], json!(["decision"]));
    assert_eq!(
        reply_from_answer(
            &request,
            Ok(json!({"action": "accept", "content": {"decision": "approved"}}))
        ),
        granted(true, PermissionGrantScope::Turn)
    );
    assert_eq!(
        reply_from_answer(&request, Ok(json!({"decision": "approved_for_session"}))),
        granted(true, PermissionGrantScope::Session)
    );
    assert_eq!(
        reply_from_answer(&request, Ok(json!({"action": "decline"}))),
        granted(false, PermissionGrantScope::Turn)
    );
    let (reply, note) = fallback_reply(&request, ApprovalFallback::Decline);
    assert_eq!(reply, granted(false, PermissionGrantScope::Turn));
    assert!(note.contains("granting commands network access"), "{note}");
}
