//! A client calling a thread's MCP servers directly (`mcpServer/tool/call`,
//! `mcpServer/resource/read`) against the npm reference "everything" server: results, the
//! output cap, bad params, and the operator's switch.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::mcp_servers::everything_stdio;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::server::{SpawnOptions, TestServer};

const CONFIG: &str = "model_provider = \"demo\"\napproval_policy = \"never\"\n";

/// A server with the everything server configured (and `extra` config), and a thread whose
/// server is ready.
async fn start(extra: &str) -> (TestServer, String, tempfile::TempDir) {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: format!("{CONFIG}{extra}{}", everything_stdio("")),
        args: Vec::new(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    let started = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    let ready = server
        .take_matching(|message| {
            message["method"] == "mcpServer/startupStatus/updated"
                && (message["params"]["status"] == "ready"
                    || message["params"]["status"] == "failed")
        })
        .await;
    assert_eq!(ready["params"]["status"], "ready", "{ready}");
    (server, thread_id, workspace)
}

#[tokio::test]
async fn a_client_calls_a_tool_and_reads_a_resource_of_its_threads_server() {
    let (mut server, thread_id, _workspace) = start("").await;
    let result = server
        .request(
            "mcpServer/tool/call",
            json!({
                "threadId": thread_id,
                "server": "everything",
                "tool": "echo",
                "arguments": {"message": "hello"},
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "Echo: hello"}])
    );
    assert_eq!(result["isError"], false);

    // Without a thread id: the caller's latest thread.
    let read = server
        .request(
            "mcpServer/resource/read",
            json!({"server": "everything", "uri": "demo://resource/dynamic/text/1"}),
        )
        .await
        .unwrap();
    let contents = read["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 1, "{read}");
    assert_eq!(contents[0]["uri"], "demo://resource/dynamic/text/1");
    assert!(
        contents[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Resource 1: This is a plaintext resource"),
        "{read}"
    );
    assert_eq!(read["originCallId"], Value::Null);

    for (method, params, wanted) in [
        (
            "mcpServer/tool/call",
            json!({"threadId": thread_id, "server": "nowhere", "tool": "echo"}),
            "unknown MCP server `nowhere`",
        ),
        (
            "mcpServer/tool/call",
            json!({"threadId": thread_id, "server": "everything", "tool": "no-such-tool"}),
            "tool `no-such-tool` is not available",
        ),
        (
            "mcpServer/tool/call",
            json!({"threadId": thread_id, "server": "everything", "tool": "echo", "arguments": [1]}),
            "`arguments` must be a JSON object",
        ),
        (
            "mcpServer/tool/call",
            json!({"threadId": "00000000-0000-0000-0000-000000000000", "server": "everything", "tool": "echo"}),
            "thread not loaded",
        ),
        (
            "mcpServer/tool/call",
            json!({"threadId": thread_id, "server": "everything"}),
            "tool",
        ),
        (
            "mcpServer/resource/read",
            json!({"threadId": thread_id, "server": "everything", "uri": "demo://no/such/resource"}),
            "returned an error",
        ),
    ] {
        let error = server.request(method, params.clone()).await.unwrap_err();
        assert_eq!(error["code"], -32600, "{params}: {error}");
        assert!(
            error["message"].as_str().unwrap().contains(wanted),
            "{params}: {error}"
        );
    }
}

#[tokio::test]
async fn results_are_cut_as_the_models_are() {
    let (mut server, thread_id, _workspace) = start("mcp_tool_output_max_bytes = 200\n").await;
    let long = "x".repeat(5000);
    let result = server
        .request(
            "mcpServer/tool/call",
            json!({
                "threadId": thread_id,
                "server": "everything",
                "tool": "echo",
                "arguments": {"message": long},
            }),
        )
        .await
        .unwrap();
    let size = result["content"].to_string().len();
    assert!(size < 1000, "{size}: {result}");
    assert!(result.to_string().contains("cut"), "{result}");

    let read = server
        .request(
            "mcpServer/resource/read",
            json!({"threadId": thread_id, "server": "everything", "uri": "demo://resource/dynamic/text/1"}),
        )
        .await
        .unwrap();
    assert!(read["contents"].to_string().len() < 1000, "{read}");
}

#[tokio::test]
async fn the_operator_can_turn_direct_calls_off() {
    let (mut server, thread_id, _workspace) =
        start("[clients]\nallow_mcp_server_calls = false\n").await;
    for (method, params) in [
        (
            "mcpServer/tool/call",
            json!({"threadId": thread_id, "server": "everything", "tool": "echo", "arguments": {"message": "hi"}}),
        ),
        (
            "mcpServer/resource/read",
            json!({"threadId": thread_id, "server": "everything", "uri": "demo://resource/dynamic/text/1"}),
        ),
    ] {
        let error = server.request(method, params).await.unwrap_err();
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("clients.allow_mcp_server_calls"),
            "{error}"
        );
    }
}
