//! The operator's ceiling on the sandbox a client may obtain (`clients.max_sandbox`), end to
//! end against the real binary: at each front end's default and widened by the operator, every
//! way of asking for more than the ceiling — `dangerFullAccess`, `externalSandbox`, writable
//! roots `/`, a working directory `/` or one holding `$TANDEM_HOME`, network access — is
//! refused with an error naming the setting and runs nothing; the model's escalation, even
//! one the client would approve, and a patch beyond the ceiling are declined; and a stored
//! thread resumed under a narrower ceiling is narrowed.
//!
//! Each refusal is paired with the same request served where the ceiling allows it, so that
//! the test fails if the refusal comes from anything else. The commands that must run use
//! `dangerFullAccess`, so the tests do not depend on the kernel's Landlock support.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::McpStdio;
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call};
use tandem_tests::server::{SpawnOptions, TestServer};

use common::tool_turns::{Answer, Setup, config, decision, done, find, run_turn, tool_output};

const DEMO_CONFIG: &str = "model_provider = \"demo\"\n";
const INVALID_REQUEST: i64 = -32600;

/// `execOneOffCommand` (or `command/exec`) params that create `marker` in `cwd` under
/// `policy`.
fn touch(marker: &Path, cwd: &Path, policy: Value) -> Value {
    json!({
        "command": ["touch", marker.to_string_lossy()],
        "cwd": cwd.to_string_lossy(),
        "sandboxPolicy": policy,
    })
}

/// The ways around a `workspace-write` ceiling, each with the start of its refusal: a policy
/// and the working directory it runs in (`None`: the workspace).
fn beyond_workspace_write(home: &Path) -> Vec<(Value, Option<PathBuf>, &'static str)> {
    vec![
        (
            json!({"type": "dangerFullAccess"}),
            None,
            "sandbox `dangerFullAccess`",
        ),
        (
            json!({"type": "externalSandbox", "networkAccess": "enabled"}),
            None,
            "sandbox `externalSandbox`",
        ),
        (
            json!({"type": "workspaceWrite", "writableRoots": ["/"]}),
            None,
            "writable root `/`",
        ),
        (
            json!({"type": "workspaceWrite"}),
            Some(PathBuf::from("/")),
            "a writable working directory `/`",
        ),
        (
            json!({"type": "workspaceWrite", "writableRoots": [home.parent().unwrap()]}),
            None,
            "writable root",
        ),
        (
            json!({"type": "workspaceWrite", "networkAccess": true}),
            None,
            "network access",
        ),
    ]
}

/// Asserts a JSON-RPC error naming the ceiling, whose message starts with `what`.
fn assert_beyond(error: &Value, what: &str, ceiling: &str) {
    assert_eq!(error["code"], INVALID_REQUEST, "{what}: {error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(what), "expected `{what}` in {message}");
    assert!(
        message.ends_with(&format!(
            "is beyond what this server lets a client obtain (clients.max_sandbox = \"{ceiling}\")"
        )),
        "{message}"
    );
}

#[tokio::test]
async fn an_mcp_server_refuses_every_command_beyond_its_default_ceiling() {
    let scratch = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    let home = server.home.path().to_path_buf();
    for (index, (policy, cwd, what)) in beyond_workspace_write(&home).into_iter().enumerate() {
        let marker = scratch.path().join(format!("marker-{index}"));
        let cwd = cwd.unwrap_or_else(|| workspace.path().to_path_buf());
        let response = server
            .request(
                json!(index + 1),
                "execOneOffCommand",
                touch(&marker, &cwd, policy),
            )
            .await;
        assert_beyond(&response["error"], what, "workspace-write");
        assert!(!marker.exists(), "{what}: the command ran");
    }
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn an_operator_widens_the_mcp_ceiling_by_flag_or_by_its_own_sandbox_mode() {
    let workspace = tempfile::tempdir().unwrap();
    let flag = ["-c", "clients.max_sandbox=\"danger-full-access\""];
    let own_mode = format!("{DEMO_CONFIG}sandbox_mode = \"danger-full-access\"\n");
    for (config_toml, args) in [(DEMO_CONFIG, &flag[..]), (own_mode.as_str(), &[][..])] {
        let mut server = McpStdio::spawn(config_toml, args).await;
        server.initialize("2025-06-18", json!({})).await;
        let marker = workspace.path().join("full-access");
        let response = server
            .request(
                json!(1),
                "execOneOffCommand",
                touch(
                    &marker,
                    workspace.path(),
                    json!({"type": "dangerFullAccess"}),
                ),
            )
            .await;
        assert_eq!(response["result"]["exitCode"], 0, "{response}");
        assert!(marker.exists());
        std::fs::remove_file(&marker).unwrap();
        assert_eq!(server.shutdown().await, Some(0));
    }
}

#[tokio::test]
async fn conversations_and_the_codex_tool_are_held_to_the_mcp_ceiling() {
    let workspace = tempfile::tempdir().unwrap();
    let cwd = workspace.path().to_string_lossy().to_string();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    for (id, params, what) in [
        (
            1,
            json!({"cwd": cwd, "sandbox": "danger-full-access"}),
            "sandbox `dangerFullAccess`",
        ),
        // The host's own sandbox means none of Tandem's: full access in effect.
        (
            2,
            json!({"cwd": cwd, "sandbox": "external-sandbox"}),
            "sandbox `dangerFullAccess`",
        ),
        (
            3,
            json!({"cwd": "/", "sandbox": "workspace-write"}),
            "a writable working directory `/`",
        ),
        (
            4,
            json!({"cwd": cwd, "config": {"sandbox_mode": "danger-full-access"}}),
            "sandbox `dangerFullAccess`",
        ),
        (
            5,
            json!({"cwd": cwd, "sandbox": "workspace-write", "config": {"sandbox_workspace_write.writable_roots": ["/"]}}),
            "writable root `/`",
        ),
    ] {
        let response = server.request(json!(id), "newConversation", params).await;
        assert_beyond(&response["error"], what, "workspace-write");
    }

    // Within the ceiling a conversation starts; a turn asking for more is refused.
    let created = server
        .request(
            json!(6),
            "newConversation",
            json!({"cwd": cwd, "sandbox": "workspace-write"}),
        )
        .await;
    let conversation_id = created["result"]["conversationId"].as_str().unwrap();
    let turn = server
        .request(
            json!(7),
            "sendUserTurn",
            json!({
                "conversationId": conversation_id,
                "items": [{"type": "text", "data": {"text": "hi"}}],
                "cwd": cwd,
                "approvalPolicy": "never",
                "sandboxPolicy": {"type": "dangerFullAccess"},
                "model": "demo",
                "summary": "auto",
            }),
        )
        .await;
    assert_beyond(
        &turn["error"],
        "sandbox `dangerFullAccess`",
        "workspace-write",
    );

    for (id, arguments, what) in [
        (
            8,
            json!({"prompt": "hi", "cwd": cwd, "sandbox": "danger-full-access"}),
            "sandbox `dangerFullAccess`",
        ),
        (
            9,
            json!({"prompt": "hi", "cwd": "/", "sandbox": "workspace-write"}),
            "a writable working directory `/`",
        ),
        (
            10,
            json!({"prompt": "hi", "cwd": cwd, "config": {"sandbox_mode": "danger-full-access"}}),
            "sandbox `dangerFullAccess`",
        ),
    ] {
        let response = server
            .request(
                json!(id),
                "tools/call",
                json!({"name": "codex", "arguments": arguments}),
            )
            .await;
        assert_eq!(response["result"]["isError"], true, "{response}");
        let text = response["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(what), "expected `{what}` in {text}");
        assert!(
            text.contains("(clients.max_sandbox = \"workspace-write\")"),
            "{text}"
        );
    }
    assert_eq!(server.shutdown().await, Some(0));
}

/// `tandem app-server` with `config_toml` and extra arguments, initialized, in `home` (a
/// fresh one when `None`).
async fn app_server(config_toml: &str, args: &[&str], home: Option<&Path>) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config_toml.to_string(),
        args: args.iter().map(|arg| arg.to_string()).collect(),
        home: home.map(Path::to_path_buf),
        cwd: None,
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    server
}

const NARROW: [&str; 2] = ["-c", "clients.max_sandbox=\"workspace-write\""];

#[tokio::test]
async fn an_app_server_serves_full_access_by_default_and_refuses_it_under_a_narrower_ceiling() {
    let scratch = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();

    let mut default = app_server(DEMO_CONFIG, &[], None).await;
    let marker = scratch.path().join("default");
    let result = default
        .request(
            "command/exec",
            touch(
                &marker,
                workspace.path(),
                json!({"type": "dangerFullAccess"}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(result["exitCode"], 0);
    assert!(marker.exists());
    default.shutdown().await;

    let mut narrow = app_server(DEMO_CONFIG, &NARROW, None).await;
    let home = narrow.home.clone();
    for (index, (policy, cwd, what)) in beyond_workspace_write(&home).into_iter().enumerate() {
        let marker = scratch.path().join(format!("narrow-{index}"));
        let cwd = cwd.unwrap_or_else(|| workspace.path().to_path_buf());
        let error = narrow
            .request("command/exec", touch(&marker, &cwd, policy))
            .await
            .expect_err(what);
        assert_beyond(&error, what, "workspace-write");
        assert!(!marker.exists(), "{what}: the command ran");
    }

    let cwd = workspace.path().to_string_lossy().to_string();
    for (params, what) in [
        (
            json!({"cwd": cwd, "sandbox": "danger-full-access"}),
            "sandbox `dangerFullAccess`",
        ),
        (
            json!({"cwd": "/", "sandbox": "workspace-write"}),
            "a writable working directory `/`",
        ),
        (
            json!({"cwd": cwd, "sandbox": "workspace-write", "config": {"sandbox_workspace_write": {"writable_roots": ["../../../../../../.."]}}}),
            "writable root `../../../../../../..`",
        ),
        (
            json!({"cwd": cwd, "config": {"sandbox_mode": "workspace-write", "sandbox_workspace_write.network_access": true}}),
            "network access",
        ),
    ] {
        let error = narrow.request("thread/start", params).await.unwrap_err();
        assert_beyond(&error, what, "workspace-write");
    }

    let started = narrow
        .request(
            "thread/start",
            json!({"cwd": cwd, "sandbox": "workspace-write"}),
        )
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap();
    for (extra, what) in [
        (
            json!({"sandboxPolicy": {"type": "externalSandbox"}}),
            "sandbox `externalSandbox`",
        ),
        (json!({"cwd": "/"}), "a writable working directory `/`"),
    ] {
        let mut params = json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]});
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        let error = narrow.request("turn/start", params).await.unwrap_err();
        assert_beyond(&error, what, "workspace-write");
    }
    let read = narrow
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(read["thread"]["turns"], json!([]), "a refused turn ran");
    narrow.shutdown().await;
}

/// A thread on a workspace with the mock model, under `approval` and `sandbox`, with extra
/// server arguments.
async fn setup(approval: &str, sandbox: &str, args: &[&str]) -> Setup {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = app_server(
        &config(&model.base_url(), approval, sandbox, "responses"),
        args,
        None,
    )
    .await;
    let started = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    server.notification("thread/started").await;
    Setup {
        model,
        server,
        thread_id,
        workspace,
    }
}

fn escalated(call_id: &str, cmd: &str) -> MockResponse {
    let arguments = json!({
        "cmd": cmd,
        "login": false,
        "sandbox_permissions": "require_escalated",
        "justification": "needs to write outside the workspace",
    })
    .to_string();
    MockResponse::sse(responses_function_call(call_id, "exec_command", &arguments))
}

#[tokio::test]
async fn an_escalation_the_client_would_approve_is_declined_below_a_full_ceiling() {
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("escaped");
    let script = format!("touch {}", marker.display());

    // Full ceiling (the app-server's default): the client is asked and its approval runs the
    // command outside the sandbox.
    let mut full = setup("on-request", "workspace-write", &[]).await;
    full.model.push_all([escalated("call_1", &script), done()]);
    let messages = run_turn(&mut full, "escalate", vec![decision("accept")]).await;
    assert_eq!(
        find(&messages, "item/commandExecution/requestApproval").len(),
        1
    );
    assert!(marker.exists(), "the approved escalation did not run");
    std::fs::remove_file(&marker).unwrap();

    // Below it: nobody is asked (a request would find no answer and fail the test), nothing
    // runs, and the model reads why.
    let mut narrow = setup("on-request", "workspace-write", &NARROW).await;
    narrow
        .model
        .push_all([escalated("call_1", &script), done()]);
    let messages = run_turn(&mut narrow, "escalate", Vec::<Answer>::new()).await;
    assert!(find(&messages, "item/commandExecution/requestApproval").is_empty());
    assert!(!marker.exists(), "the escalation ran");
    let output = tool_output(&narrow.model, "call_1");
    assert!(
        output.contains("clients.max_sandbox = \"workspace-write\""),
        "{output}"
    );
}

#[tokio::test]
async fn an_approved_patch_stays_within_the_ceiling() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("note.txt");
    let patch = format!(
        "*** Begin Patch\n*** Add File: {}\n+outside\n*** End Patch\n",
        target.display()
    );
    let arguments = json!({"input": patch}).to_string();
    let patch_call =
        || MockResponse::sse(responses_function_call("call_p", "apply_patch", &arguments));

    let mut full = setup("on-request", "workspace-write", &[]).await;
    full.model.push_all([patch_call(), done()]);
    let messages = run_turn(&mut full, "write outside", vec![decision("accept")]).await;
    assert_eq!(find(&messages, "item/fileChange/requestApproval").len(), 1);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "outside\n");
    std::fs::remove_file(&target).unwrap();

    let mut narrow = setup("on-request", "workspace-write", &NARROW).await;
    narrow.model.push_all([patch_call(), done()]);
    let messages = run_turn(&mut narrow, "write outside", Vec::<Answer>::new()).await;
    assert!(find(&messages, "item/fileChange/requestApproval").is_empty());
    assert!(!target.exists(), "the patch was written");
    let output = tool_output(&narrow.model, "call_p");
    assert!(output.contains("clients.max_sandbox"), "{output}");
}

#[tokio::test]
async fn a_stored_thread_resumed_under_a_narrower_ceiling_is_narrowed() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let config_toml = config(&model.base_url(), "never", "read-only", "responses");
    let cwd = workspace.path().to_string_lossy().to_string();

    let mut full = app_server(&config_toml, &[], Some(home.path())).await;
    let started = full
        .request(
            "thread/start",
            json!({"cwd": cwd, "sandbox": "danger-full-access"}),
        )
        .await
        .unwrap();
    assert_eq!(started["sandbox"], json!({"type": "dangerFullAccess"}));
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    model.push(done());
    full.request(
        "turn/start",
        json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}),
    )
    .await
    .unwrap();
    full.notification("turn/completed").await;
    full.shutdown().await;

    let mut narrow = app_server(&config_toml, &NARROW, Some(home.path())).await;
    let error = narrow
        .request(
            "thread/resume",
            json!({"threadId": thread_id, "sandbox": "danger-full-access"}),
        )
        .await
        .unwrap_err();
    assert_beyond(&error, "sandbox `dangerFullAccess`", "workspace-write");
    // Narrowing cannot make `/` a workspace: a working directory the client names is refused.
    let error = narrow
        .request("thread/resume", json!({"threadId": thread_id, "cwd": "/"}))
        .await
        .unwrap_err();
    assert_beyond(
        &error,
        "a writable working directory `/`",
        "workspace-write",
    );
    let resumed = narrow
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(resumed["sandbox"]["type"], "workspaceWrite", "{resumed}");
    assert_eq!(resumed["sandbox"]["networkAccess"], false);
    narrow.shutdown().await;
}
