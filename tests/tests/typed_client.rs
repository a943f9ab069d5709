//! The typed test client: requests, server requests and notifications named by their entry in
//! the protocol's method tables, with params and results decoded as the table's types. Beyond
//! exercising the client, this checks that what the real binary sends decodes as the types the
//! schemas and SDKs are generated from.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use app_server_protocol::item::{CommandExecutionStatus, ThreadItemDetails, UserInput};
use app_server_protocol::server_requests::{
    CommandExecutionApprovalDecision, CommandExecutionRequestApprovalResponse,
};
use app_server_protocol::tables::{client_requests, server_notifications, server_requests};
use app_server_protocol::thread::TurnStatus;
use app_server_protocol::thread_requests::{ThreadReadParams, ThreadStartParams};
use app_server_protocol::turn_requests::TurnStartParams;
use common::tool_turns::{config, done, exec};
use tandem_tests::mock_model::MockModel;
use tandem_tests::server::{SpawnOptions, TestServer};

async fn approval_turn(
    decision: CommandExecutionApprovalDecision,
) -> (CommandExecutionStatus, bool) {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config(
            &model.base_url(),
            "untrusted",
            "danger-full-access",
            "responses",
        ),
        args: Vec::new(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;

    let cwd = workspace.path().to_str().unwrap().to_string();
    let started = server
        .call::<client_requests::ThreadStart>(ThreadStartParams {
            cwd: Some(cwd.clone()),
            ..ThreadStartParams::default()
        })
        .await
        .unwrap();
    let thread_id = started.thread.id.clone();
    assert_eq!(started.cwd, cwd);
    let announced = server
        .notification_of::<server_notifications::ThreadStarted>()
        .await;
    assert_eq!(announced.thread.id, thread_id);

    model.push_all([exec("call_1", "touch typed.txt"), done()]);
    let turn = server
        .call::<client_requests::TurnStart>(TurnStartParams {
            thread_id: thread_id.clone(),
            input: vec![UserInput::Text {
                text: "run it".to_string(),
                text_elements: None,
            }],
            ..TurnStartParams::default()
        })
        .await
        .unwrap();

    let (id, question) = server
        .server_request_of::<server_requests::CommandExecutionRequestApproval>()
        .await;
    assert_eq!(question.thread_id, thread_id);
    assert_eq!(question.turn_id, turn.turn.id);
    assert_eq!(question.item_id, "call_1");
    server
        .answer::<server_requests::CommandExecutionRequestApproval>(
            id,
            CommandExecutionRequestApprovalResponse { decision },
        )
        .await;

    let completed = server
        .notification_of::<server_notifications::TurnCompleted>()
        .await;
    assert_eq!(completed.turn.id, turn.turn.id);
    assert_eq!(completed.turn.status, TurnStatus::Completed);

    let read = server
        .call::<client_requests::ThreadRead>(ThreadReadParams {
            thread_id,
            include_turns: Some(true),
        })
        .await
        .unwrap();
    let status = read
        .thread
        .turns
        .iter()
        .flat_map(|turn| &turn.items)
        .find_map(|item| match &item.details {
            ThreadItemDetails::CommandExecution { status, .. } => Some(*status),
            _ => None,
        })
        .expect("the stored turn holds the command");
    let ran = workspace.path().join("typed.txt").exists();
    assert_eq!(server.shutdown().await, Some(0));
    (status, ran)
}

#[tokio::test]
async fn an_approval_round_trip_decodes_as_the_tables_types() {
    let (status, ran) = approval_turn(CommandExecutionApprovalDecision::Accept).await;
    assert_eq!(status, CommandExecutionStatus::Completed);
    assert!(ran, "the accepted command ran");
}

#[tokio::test]
async fn a_typed_decline_keeps_the_command_from_running() {
    let (status, ran) = approval_turn(CommandExecutionApprovalDecision::Decline).await;
    assert_eq!(status, CommandExecutionStatus::Declined);
    assert!(!ran, "the declined command did not run");
}

#[tokio::test]
async fn an_error_response_comes_back_as_the_error_object() {
    let mut server = TestServer::spawn("").await;
    server.initialize().await;
    let error = server
        .call::<client_requests::ThreadRead>(ThreadReadParams {
            thread_id: "00000000-0000-7000-8000-000000000000".to_string(),
            include_turns: None,
        })
        .await
        .expect_err("an unknown thread is an error");
    assert_eq!(error["code"], -32600, "{error}");
    assert_eq!(server.shutdown().await, Some(0));
}
