//! Interop with the Rust SDK's client (`rmcp` 3, in its 2026-07-28 lifecycle: `server/discover`
//! then per-request `_meta`, no `initialize`) against `tandem mcp-server` over real stdio and
//! real HTTP: discovery, `tools/list` and a `codex` call with the offline demo provider, then
//! `codex-reply` on its thread; and a `codex` call whose approvals the client answers through
//! `input_required` rounds (its elicitation handler); and the same call as a task of the
//! Tasks extension, through rmcp's own task API (`call_tool_once`, `get_task`, `update_task`).

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pretty_assertions::assert_eq;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, home_with};
use tandem_tests::server::tandem_binary;

const DEMO_CONFIG: &str = "model_provider = \"demo\"\napproval_policy = \"untrusted\"\n";

fn modern() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap()
}

/// Discovery, the tools, a `codex` call and a `codex-reply` through `client`.
async fn exercise(client: RunningService<RoleClient, ()>, workspace: &std::path::Path) {
    let server = client.peer_info().expect("the discover result");
    // The discover result, not an `initialize` one: the client stayed in the 2026 era.
    assert_eq!(server.protocol_version, ProtocolVersion::V_2026_07_28);
    let info = server.server_info.as_ref().expect("the server info");
    assert_eq!(info.name, "tandem-mcp-server");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert!(
        names.contains(&"codex") && names.contains(&"codex-reply"),
        "{names:?}"
    );

    let called = client
        .call_tool(
            CallToolRequestParams::new("codex").with_arguments(arguments(json!({
                "prompt": "Show me what you can do.",
                "cwd": workspace.to_string_lossy(),
                "approval-policy": "never",
                "sandbox": "workspace-write",
            }))),
        )
        .await
        .unwrap();
    assert_eq!(called.is_error, Some(false), "{called:?}");
    let structured = called
        .structured_content
        .clone()
        .expect("structured content");
    let thread_id = structured["threadId"].as_str().unwrap().to_string();

    let replied = client
        .call_tool(
            CallToolRequestParams::new("codex-reply").with_arguments(arguments(json!({
                "threadId": thread_id, "prompt": "Again.",
            }))),
        )
        .await
        .unwrap();
    assert_eq!(replied.is_error, Some(false), "{replied:?}");
    assert_eq!(
        replied.structured_content.unwrap()["threadId"],
        json!(thread_id)
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_in_the_2026_era_over_http() {
    let workspace = tempfile::tempdir().unwrap();
    let server = McpHttp::spawn(DEMO_CONFIG, &[]).await;
    let transport = StreamableHttpClientTransport::from_uri(server.url.clone());
    let client = ().serve_with_lifecycle(transport, modern()).await.unwrap();
    exercise(client, workspace.path()).await;
}

#[tokio::test]
async fn rmcp_in_the_2026_era_over_stdio() {
    let workspace = tempfile::tempdir().unwrap();
    let home = home_with(DEMO_CONFIG);
    let mut command = tokio::process::Command::new(tandem_binary());
    command
        .arg("mcp-server")
        .env("TANDEM_HOME", home.path())
        .stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(command).unwrap();
    let client = ().serve_with_lifecycle(transport, modern()).await.unwrap();
    exercise(client, workspace.path()).await;
}

/// A client that answers every elicitation with "approved", counting them.
#[derive(Clone, Default)]
struct Approver {
    asked: Arc<AtomicUsize>,
}

impl rmcp::ClientHandler for Approver {
    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let asked = serde_json::to_value(&request).unwrap();
        assert!(
            asked["requestedSchema"]["properties"]["decision"].is_object(),
            "{asked}"
        );
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(json!({"decision": "approved"})),
        )
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.capabilities.elicitation = Some(rmcp::model::ElicitationCapability::new());
        info
    }
}

/// A `codex` call whose two approvals (the command, the patch) `client` answers through
/// `input_required` rounds.
async fn approve_through_input_required(
    client: RunningService<RoleClient, Approver>,
    asked: &AtomicUsize,
    workspace: &std::path::Path,
) {
    let called = client
        .call_tool(
            CallToolRequestParams::new("codex").with_arguments(arguments(json!({
                "prompt": "Show me what you can do.",
                "cwd": workspace.to_string_lossy(),
                "approval-policy": "untrusted",
                "sandbox": "workspace-write",
            }))),
        )
        .await
        .unwrap();
    assert_eq!(called.is_error, Some(false), "{called:?}");
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert!(workspace.join("tandem-demo.txt").exists());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_answers_approvals_through_input_required_over_http_and_stdio() {
    let workspace = tempfile::tempdir().unwrap();
    let server = McpHttp::spawn(DEMO_CONFIG, &[]).await;
    let transport = StreamableHttpClientTransport::from_uri(server.url.clone());
    let approver = Approver::default();
    let asked = approver.asked.clone();
    let client = approver
        .serve_with_lifecycle(transport, modern())
        .await
        .unwrap();
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2026_07_28
    );
    approve_through_input_required(client, &asked, workspace.path()).await;

    let workspace = tempfile::tempdir().unwrap();
    let home = home_with(DEMO_CONFIG);
    let mut command = tokio::process::Command::new(tandem_binary());
    command
        .arg("mcp-server")
        .env("TANDEM_HOME", home.path())
        .stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(command).unwrap();
    let approver = Approver::default();
    let asked = approver.asked.clone();
    let client = approver
        .serve_with_lifecycle(transport, modern())
        .await
        .unwrap();
    approve_through_input_required(client, &asked, workspace.path()).await;
}

/// A client that declares elicitation and the Tasks extension.
#[derive(Clone, Default)]
struct TaskClient;

impl rmcp::ClientHandler for TaskClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.capabilities.elicitation = Some(rmcp::model::ElicitationCapability::new());
        // `ClientCapabilities::builder().enable_tasks()` exists only with rmcp's `server` or
        // `macros` feature; the declaration is this one entry either way.
        info.capabilities.extensions = Some(
            [(
                rmcp::model::TASKS_EXTENSION_ID.to_string(),
                serde_json::Map::new(),
            )]
            .into(),
        );
        info
    }
}

/// How long a task may take to end.
const TASK_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// The same `codex` call as [`approve_through_input_required`], run as a task with rmcp's own
/// task API: `call_tool_once` gets the task at once, `get_task` polls it (at the interval it
/// suggests), each question it shows in `inputRequests` is approved with `update_task`, and
/// the final `tools/call` result comes with `completed`.
async fn approve_a_task(
    client: RunningService<RoleClient, TaskClient>,
    workspace: &std::path::Path,
) {
    use rmcp::model::{
        CallToolResponse, CallToolResult, ElicitResult, ElicitationAction, GetTaskParams,
        InputRequest, InputResponses, TaskPayload, TaskStatus, UpdateTaskParams,
    };
    let response = client
        .call_tool_once(
            CallToolRequestParams::new("codex").with_arguments(arguments(json!({
                "prompt": "Show me what you can do.",
                "cwd": workspace.to_string_lossy(),
                "approval-policy": "untrusted",
                "sandbox": "workspace-write",
            }))),
        )
        .await
        .unwrap();
    let CallToolResponse::Task(created) = response else {
        panic!("expected a task, got {response:?}");
    };
    // The task comes at once, before any approval was asked.
    assert_eq!(created.task.status, TaskStatus::Working);
    let task_id = created.task.task_id.clone();
    let interval =
        std::time::Duration::from_millis(created.task.poll_interval_ms.unwrap_or(100).min(200));
    let started = std::time::Instant::now();
    let mut answered = std::collections::BTreeSet::new();
    let mut messages = Vec::new();
    let result = loop {
        let got = client
            .get_task(GetTaskParams::new(task_id.clone()))
            .await
            .unwrap();
        assert_eq!(got.task.task.task_id, task_id);
        match got.task.payload {
            TaskPayload::Working => {}
            TaskPayload::InputRequired { input_requests } => {
                let mut responses = InputResponses::new();
                for (key, request) in input_requests {
                    if answered.contains(&key) {
                        continue;
                    }
                    let InputRequest::Elicitation(request) = request else {
                        panic!("expected an elicitation, got {request:?}");
                    };
                    let asked = serde_json::to_value(&request.params).unwrap();
                    assert!(
                        asked["requestedSchema"]["properties"]["decision"].is_object(),
                        "{asked}"
                    );
                    // rmcp's typed `ElicitRequestParams` keeps neither `_meta` nor the top-level
                    // `codex_*` fields: the message tells the questions apart.
                    messages.push(asked["message"].as_str().unwrap().to_string());
                    let approved = ElicitResult::new(ElicitationAction::Accept)
                        .with_content(json!({"decision": "approved"}));
                    responses.insert(key.clone(), serde_json::to_value(approved).unwrap());
                    answered.insert(key);
                }
                if !responses.is_empty() {
                    client
                        .update_task(UpdateTaskParams::new(task_id.clone(), responses))
                        .await
                        .unwrap();
                }
            }
            TaskPayload::Completed { result } => break result,
            other => panic!("task ended otherwise: {other:?}"),
        }
        assert!(started.elapsed() < TASK_DEADLINE, "task stuck");
        tokio::time::sleep(interval).await;
    };
    // The command, then the patch: each approved through `tasks/update`.
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].contains("uname -srm"), "{messages:?}");
    assert!(messages[1].contains("file changes"), "{messages:?}");
    let result: CallToolResult = serde_json::from_value(Value::Object(result)).unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert!(
        result.structured_content.unwrap()["threadId"].is_string(),
        "the result names its thread"
    );
    assert!(workspace.join("tandem-demo.txt").exists());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_runs_a_codex_call_as_a_task_approved_through_tasks_update_over_http_and_stdio() {
    let workspace = tempfile::tempdir().unwrap();
    let server = McpHttp::spawn(DEMO_CONFIG, &[]).await;
    let transport = StreamableHttpClientTransport::from_uri(server.url.clone());
    let client = TaskClient
        .serve_with_lifecycle(transport, modern())
        .await
        .unwrap();
    approve_a_task(client, workspace.path()).await;

    let workspace = tempfile::tempdir().unwrap();
    let home = home_with(DEMO_CONFIG);
    let mut command = tokio::process::Command::new(tandem_binary());
    command
        .arg("mcp-server")
        .env("TANDEM_HOME", home.path())
        .stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(command).unwrap();
    let client = TaskClient
        .serve_with_lifecycle(transport, modern())
        .await
        .unwrap();
    approve_a_task(client, workspace.path()).await;
}
