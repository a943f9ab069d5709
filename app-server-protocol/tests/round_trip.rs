//! Serde round trips on whole objects for every union of the protocol, with the exact wire
//! spellings observed from the reference server.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on broken fixtures"
)]

use app_server_protocol::item::{
    CommandAction, CommandExecutionSource, CommandExecutionStatus, FileUpdateChange,
    PatchApplyStatus, PatchChangeKind, ThreadItem, ThreadItemDetails, UserInput,
};
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::policy::{AskForApproval, SandboxMode, SandboxPolicy};
use app_server_protocol::server_requests::{
    CommandExecutionApprovalDecision, FileChangeApprovalDecision,
};
use app_server_protocol::tables::{ClientNotification, ClientRequest, ServerNotification};
use app_server_protocol::thread::{CodexErrorInfo, ThreadActiveFlag, ThreadStatus};
use pretty_assertions::assert_eq;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// `value` serializes to exactly `wire`, and `wire` deserializes back to `value`.
fn check<T>(value: T, wire: Value)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    assert_eq!(serde_json::to_value(&value).expect("serialize"), wire);
    assert_eq!(
        serde_json::from_value::<T>(wire).expect("deserialize"),
        value
    );
}

#[test]
fn thread_items() {
    check(
        ThreadItem {
            details: ThreadItemDetails::UserMessage {
                id: "u1".into(),
                client_id: None,
                content: vec![UserInput::Text {
                    text: "hi".into(),
                    text_elements: Some(vec![]),
                }],
            },
            started_at_ms: Some(1),
            completed_at_ms: None,
        },
        json!({"type": "userMessage", "id": "u1", "clientId": null,
               "content": [{"type": "text", "text": "hi", "text_elements": []}],
               "startedAtMs": 1, "completedAtMs": null}),
    );
    check(
        ThreadItem {
            details: ThreadItemDetails::AgentMessage {
                moderation: None,
                id: "msg_2".into(),
                text: "tok0 ".into(),
                phase: None,
                memory_citation: None,
                delivery: None,
                questions: None,
            },
            started_at_ms: Some(5),
            completed_at_ms: Some(6),
        },
        json!({"type": "agentMessage", "moderation": null, "id": "msg_2", "text": "tok0 ",
               "phase": null, "memoryCitation": null, "delivery": null, "questions": null,
               "startedAtMs": 5, "completedAtMs": 6}),
    );
    check(
        ThreadItem {
            details: ThreadItemDetails::Reasoning {
                id: "rs_1".into(),
                summary: vec!["s".into()],
                content: vec![],
            },
            started_at_ms: None,
            completed_at_ms: None,
        },
        json!({"type": "reasoning", "id": "rs_1", "summary": ["s"], "content": [],
               "startedAtMs": null, "completedAtMs": null}),
    );
    check(
        ThreadItem {
            details: ThreadItemDetails::CommandExecution {
                id: "call_5".into(),
                plugin_id: None,
                script_path: None,
                command: "/bin/bash -c 'ls'".into(),
                cwd: "/w".into(),
                process_id: Some("42".into()),
                source: CommandExecutionSource::UnifiedExecStartup,
                status: CommandExecutionStatus::Completed,
                command_actions: vec![CommandAction::ListFiles {
                    command: "ls".into(),
                    path: None,
                }],
                aggregated_output: Some("a\n".into()),
                exit_code: Some(0),
                duration_ms: Some(3),
            },
            started_at_ms: Some(1),
            completed_at_ms: Some(4),
        },
        json!({"type": "commandExecution", "id": "call_5", "pluginId": null, "scriptPath": null,
               "command": "/bin/bash -c 'ls'", "cwd": "/w", "processId": "42",
               "source": "unifiedExecStartup", "status": "completed",
               "commandActions": [{"type": "listFiles", "command": "ls", "path": null}],
               "aggregatedOutput": "a\n", "exitCode": 0, "durationMs": 3,
               "startedAtMs": 1, "completedAtMs": 4}),
    );
    check(
        ThreadItem {
            details: ThreadItemDetails::FileChange {
                id: "call_16".into(),
                changes: vec![FileUpdateChange {
                    path: "/w/a.txt".into(),
                    kind: PatchChangeKind::Update { move_path: None },
                    diff: "@@ -1 +1 @@\n-a\n+b\n".into(),
                }],
                status: PatchApplyStatus::Declined,
            },
            started_at_ms: Some(1),
            completed_at_ms: None,
        },
        json!({"type": "fileChange", "id": "call_16",
               "changes": [{"path": "/w/a.txt", "kind": {"type": "update", "move_path": null},
                            "diff": "@@ -1 +1 @@\n-a\n+b\n"}],
               "status": "declined", "startedAtMs": 1, "completedAtMs": null}),
    );
}

#[test]
fn user_input() {
    check(
        UserInput::Image {
            url: "data:x".into(),
            detail: None,
        },
        json!({"type": "image", "url": "data:x", "detail": null}),
    );
    check(
        UserInput::LocalImage {
            detail: None,
            path: "/a.png".into(),
        },
        json!({"type": "localImage", "detail": null, "path": "/a.png"}),
    );
    // `text_elements` may be omitted on input.
    let text: UserInput =
        serde_json::from_value(json!({"type": "text", "text": "x"})).expect("decode");
    assert_eq!(
        text,
        UserInput::Text {
            text: "x".into(),
            text_elements: None
        }
    );
    let error = serde_json::from_value::<UserInput>(json!({"type": "bogus"}))
        .expect_err("unknown variant")
        .to_string();
    assert!(error.contains("unknown variant `bogus`"), "{error}");
}

#[test]
fn sandbox_policy() {
    check(
        SandboxPolicy::DangerFullAccess,
        json!({"type": "dangerFullAccess"}),
    );
    check(
        SandboxPolicy::ReadOnly {
            network_access: Some(false),
        },
        json!({"type": "readOnly", "networkAccess": false}),
    );
    check(
        SandboxPolicy::WorkspaceWrite {
            writable_roots: Some(vec![]),
            network_access: Some(false),
            exclude_tmpdir_env_var: Some(false),
            exclude_slash_tmp: Some(false),
        },
        json!({"type": "workspaceWrite", "writableRoots": [], "networkAccess": false,
               "excludeTmpdirEnvVar": false, "excludeSlashTmp": false}),
    );
    // `{"type":"workspaceWrite"}` alone is accepted.
    check(
        SandboxPolicy::WorkspaceWrite {
            writable_roots: None,
            network_access: None,
            exclude_tmpdir_env_var: None,
            exclude_slash_tmp: None,
        },
        json!({"type": "workspaceWrite"}),
    );
    check(SandboxMode::WorkspaceWrite, json!("workspace-write"));
    check(SandboxMode::ReadOnly, json!("read-only"));
    check(SandboxMode::DangerFullAccess, json!("danger-full-access"));
    assert!(serde_json::from_value::<SandboxMode>(json!("workspaceWrite")).is_err());
}

#[test]
fn ask_for_approval() {
    check(AskForApproval::Untrusted, json!("untrusted"));
    check(AskForApproval::OnRequest, json!("on-request"));
    check(AskForApproval::Never, json!("never"));
    for rejected in ["unlessTrusted", "on-failure", "onRequest"] {
        assert!(serde_json::from_value::<AskForApproval>(json!(rejected)).is_err());
    }
}

#[test]
fn thread_status() {
    check(ThreadStatus::NotLoaded, json!({"type": "notLoaded"}));
    check(ThreadStatus::Idle, json!({"type": "idle"}));
    check(ThreadStatus::SystemError, json!({"type": "systemError"}));
    check(
        ThreadStatus::Active {
            active_flags: vec![ThreadActiveFlag::WaitingOnApproval],
        },
        json!({"type": "active", "activeFlags": ["waitingOnApproval"]}),
    );
}

#[test]
fn decisions_and_error_info() {
    check(CommandExecutionApprovalDecision::Accept, json!("accept"));
    check(
        CommandExecutionApprovalDecision::AcceptForSession,
        json!("acceptForSession"),
    );
    check(CommandExecutionApprovalDecision::Decline, json!("decline"));
    check(CommandExecutionApprovalDecision::Cancel, json!("cancel"));
    check(
        CommandExecutionApprovalDecision::AcceptWithExecpolicyAmendment {
            execpolicy_amendment: vec!["ls".into()],
        },
        json!({"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls"]}}),
    );
    check(
        FileChangeApprovalDecision::AcceptForSession,
        json!("acceptForSession"),
    );
    check(
        CodexErrorInfo::InternalServerError,
        json!("internalServerError"),
    );
    check(
        CodexErrorInfo::ResponseStreamDisconnected {
            http_status_code: None,
        },
        json!({"responseStreamDisconnected": {"httpStatusCode": null}}),
    );
}

#[test]
fn request_ids_keep_their_json_type() {
    check(RequestId::Integer(7), json!(7));
    check(RequestId::String("req-abc".into()), json!("req-abc"));
}

#[test]
fn method_names_come_from_the_table() {
    let request: ClientRequest = serde_json::from_value(
        json!({"id": "a", "method": "thread/list", "params": {"bogusField": true}, "jsonrpc": "2.0"}),
    )
    .expect("decode");
    assert_eq!(request.method(), "thread/list");
    assert_eq!(request.id(), &RequestId::String("a".into()));
    let error = serde_json::from_value::<ClientRequest>(json!({"id": 1, "method": "model/list"}))
        .expect_err("params required")
        .to_string();
    assert_eq!(error, "missing field `params`");
    let notification: ClientNotification =
        serde_json::from_value(json!({"method": "initialized", "params": {}})).expect("decode");
    assert_eq!(notification.method(), "initialized");
    for spec in ServerNotification::METHODS {
        assert!(!spec.doc.trim().is_empty(), "{} has no doc", spec.method);
    }
}
