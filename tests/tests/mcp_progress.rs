//! `item/mcpToolCall/progress` end to end: an MCP tool call carries a progress token, and the
//! progress the npm reference "everything" server sends for it (`trigger-long-running-operation`,
//! which sends no message, so the progress is shown as numbers) reaches the client as
//! progress of the call's `mcpToolCall` item, in order and before the item completes.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::mcp_servers::everything_stdio;
use common::tool_turns::{config, done, find, run_turn};
use pretty_assertions::assert_eq;
use serde_json::json;
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call};
use tandem_tests::server::{SpawnOptions, TestServer};

#[tokio::test]
async fn an_mcp_servers_progress_becomes_progress_of_the_call_item() {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config(&model.base_url(), "never", "read-only", "responses")
            + &everything_stdio(""),
        args: Vec::new(),
        home: None,
        cwd: None,
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    let result = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    server
        .take_matching(|message| {
            message["method"] == "mcpServer/startupStatus/updated"
                && message["params"]["status"] == "ready"
        })
        .await;
    let arguments = json!({"duration": 0.6, "steps": 3}).to_string();
    model.push_all([
        MockResponse::sse(responses_function_call(
            "call_long",
            "mcp__everything__trigger-long-running-operation",
            &arguments,
        )),
        done(),
    ]);
    let mut setup = common::tool_turns::Setup {
        model,
        server,
        thread_id: thread_id.clone(),
        workspace,
    };
    let messages = run_turn(&mut setup, "run it", Vec::new()).await;

    let progress: Vec<(usize, &serde_json::Value)> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| message["method"] == "item/mcpToolCall/progress")
        .collect();
    let turn_id = &find(&messages, "turn/started")[0]["params"]["turn"]["id"];
    for (_, message) in &progress {
        assert_eq!(message["params"]["threadId"], thread_id.as_str());
        assert_eq!(&message["params"]["turnId"], turn_id);
        assert_eq!(message["params"]["itemId"], "call_long");
    }
    let texts: Vec<&str> = progress
        .iter()
        .map(|(_, message)| message["params"]["message"].as_str().unwrap())
        .collect();
    // The server's last step may cross its result; every step before it arrives, in order.
    let expected = [
        "MCP tool progress: 1/3",
        "MCP tool progress: 2/3",
        "MCP tool progress: 3/3",
    ];
    assert!(texts.len() >= 2, "{messages:#?}");
    assert_eq!(texts, expected[..texts.len()].to_vec());
    let completed = messages
        .iter()
        .position(|message| {
            message["method"] == "item/completed" && message["params"]["item"]["id"] == "call_long"
        })
        .unwrap();
    assert!(progress.iter().all(|(index, _)| *index < completed));
    let item = &messages[completed]["params"]["item"];
    assert_eq!(item["status"], "completed", "{item:#}");
}
