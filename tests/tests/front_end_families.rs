//! Each front end answers exactly the methods of its families, walked from the method table so
//! that a method added later is covered: every method of the app-server's client table is sent
//! to the real binary as `tandem app-server`, as `tandem mcp-server` and as the history-only
//! `tandem mcp-server --tools search,open`, and a method outside the front end's families must
//! be answered `-32601` while every other one must reach a handler (any other answer).
//! The history-only server must also refuse a real `execOneOffCommand`, which the full MCP
//! server runs.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use app_server_protocol::tables::ClientMethod;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_core::families::{Families, front_ends};
use tandem_tests::mcp::McpStdio;
use tandem_tests::server::TestServer;

const METHOD_NOT_FOUND: i64 = -32601;

const DEMO_CONFIG: &str = "model_provider = \"demo\"\napproval_policy = \"never\"\n";

/// The methods of the table a front end is expected to answer `-32601`, and the ones it
/// answered `-32601`, side by side.
fn refused_by(families: &Families) -> Vec<&'static str> {
    ClientMethod::ALL
        .iter()
        .filter(|method| **method != ClientMethod::Initialize && !families.serves(**method))
        .map(|method| method.method())
        .collect()
}

fn error_code(response: &Value) -> Option<i64> {
    response.pointer("/error/code").and_then(Value::as_i64)
}

/// Sends every method but `initialize` with empty params; returns those answered `-32601`.
async fn mcp_refusals(server: &mut McpStdio) -> Vec<&'static str> {
    let mut refused = Vec::new();
    for (index, method) in ClientMethod::ALL.iter().enumerate() {
        if *method == ClientMethod::Initialize {
            continue;
        }
        let response = server
            .request(json!(1000 + index), method.method(), json!({}))
            .await;
        if error_code(&response) == Some(METHOD_NOT_FOUND) {
            refused.push(method.method());
        }
    }
    refused
}

/// MCP's own methods are served whatever the families.
async fn assert_mcp_methods_served(server: &mut McpStdio) {
    for (index, (method, params)) in [
        ("ping", json!({})),
        ("tools/list", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
    ]
    .into_iter()
    .enumerate()
    {
        let response = server.request(json!(900 + index), method, params).await;
        assert!(response.get("result").is_some(), "{method}: {response}");
    }
}

#[tokio::test]
async fn the_app_server_on_stdio_serves_every_family() {
    let families = front_ends::app_server_stdio();
    assert_eq!(refused_by(&families), Vec::<&str>::new());
    let mut server = TestServer::spawn(DEMO_CONFIG).await;
    server.initialize().await;
    let mut refused = Vec::new();
    for method in ClientMethod::ALL {
        if *method == ClientMethod::Initialize {
            continue;
        }
        if let Err(error) = server.request(method.method(), json!({})).await
            && error["code"] == METHOD_NOT_FOUND
        {
            refused.push(method.method());
        }
    }
    assert_eq!(refused, refused_by(&families));
    server.shutdown().await;
}

#[tokio::test]
async fn the_mcp_server_serves_mcp_and_the_conversation_api_only() {
    let families = front_ends::mcp_agent();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    assert_mcp_methods_served(&mut server).await;
    let expected = refused_by(&families);
    assert!(expected.contains(&"thread/start") && expected.contains(&"command/exec"));
    assert_eq!(mcp_refusals(&mut server).await, expected);
    server.shutdown().await;
}

#[tokio::test]
async fn the_history_only_mcp_server_serves_no_method_of_the_app_server_table() {
    let families = front_ends::mcp_tools_only();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &["--tools", "search,open"]).await;
    server.initialize("2025-06-18", json!({})).await;
    assert_mcp_methods_served(&mut server).await;
    assert_eq!(mcp_refusals(&mut server).await, refused_by(&families));
    server.shutdown().await;
}

/// `execOneOffCommand` as it was used against the history-only server: a real command, in
/// full access.
fn one_off_command(marker: &std::path::Path) -> Value {
    json!({
        "command": ["touch", marker.to_string_lossy()],
        "sandboxPolicy": {"type": "dangerFullAccess"},
    })
}

#[tokio::test]
async fn the_history_only_server_refuses_a_command_that_the_full_server_runs() {
    let scratch = tempfile::tempdir().unwrap();

    let refused = scratch.path().join("refused");
    let mut history_only = McpStdio::spawn(DEMO_CONFIG, &["--tools", "search,open"]).await;
    history_only.initialize("2025-06-18", json!({})).await;
    let response = history_only
        .request(json!(1), "execOneOffCommand", one_off_command(&refused))
        .await;
    assert_eq!(error_code(&response), Some(METHOD_NOT_FOUND), "{response}");
    assert_eq!(
        response.pointer("/error/message").and_then(Value::as_str),
        Some("method not found: execOneOffCommand")
    );
    let response = history_only
        .request(json!(2), "getAuthStatus", json!({"includeToken": true}))
        .await;
    assert_eq!(error_code(&response), Some(METHOD_NOT_FOUND), "{response}");
    history_only.shutdown().await;
    assert!(!refused.exists(), "the history-only server ran the command");

    // The same request reaches the conversation API of the full MCP server, so the refusal
    // above is the family check and not a broken request. Full access is beyond an MCP
    // server's default `clients.max_sandbox`, so the operator raises it.
    let ran = scratch.path().join("ran");
    let mut full = McpStdio::spawn(
        DEMO_CONFIG,
        &["-c", "clients.max_sandbox=\"danger-full-access\""],
    )
    .await;
    full.initialize("2025-06-18", json!({})).await;
    let response = full
        .request(json!(1), "execOneOffCommand", one_off_command(&ran))
        .await;
    assert_eq!(
        response.pointer("/result/exitCode"),
        Some(&json!(0)),
        "{response}"
    );
    full.shutdown().await;
    assert!(ran.exists(), "the full server did not run the command");
}
