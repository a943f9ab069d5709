//! Principals on one `tandem mcp-server --http` node, over real HTTP with a token file naming
//! `alice` and `bob`: what one creates, the other cannot see or reach — threads through
//! `codex-reply` and the conversation API, and history through `search` and `open`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, home_with};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::mock_config;

const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-9876543210";

/// An initialized MCP session acting for the holder of `token`.
struct Caller<'a> {
    server: &'a McpHttp,
    session: String,
    token: &'static str,
}

impl<'a> Caller<'a> {
    async fn initialize(server: &'a McpHttp, token: &'static str) -> Caller<'a> {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "principals-test", "version": "1"},
            },
        });
        let response = server
            .post_accept(None, &initialize, "application/json")
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        let caller = Caller {
            server,
            session,
            token,
        };
        let initialized = server
            .post(
                Some(&caller.session),
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(initialized.status(), 202);
        caller
    }

    /// Sends one request and returns the JSON-RPC response.
    async fn request(&self, id: i64, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.server
            .post_accept(Some(&self.session), &body, "application/json")
            .bearer_auth(self.token)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    }

    async fn tool(&self, id: i64, name: &str, arguments: Value) -> Value {
        let response = self
            .request(
                id,
                "tools/call",
                json!({"name": name, "arguments": arguments}),
            )
            .await;
        response["result"].clone()
    }
}

#[tokio::test]
async fn one_principal_never_sees_or_reaches_what_another_created() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["The pelican ", "rollout is ready."],
    )));
    let home = home_with(&mock_config(&model.base_url()));
    let tokens = home.path().join("tokens");
    std::fs::write(&tokens, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
    let tokens_arg = tokens.to_str().unwrap().to_string();
    let path = home.path().to_path_buf();
    let server = McpHttp::spawn_in(
        path,
        Some(home),
        &["--auth-token-file", &tokens_arg],
        "info",
    )
    .await;
    let alice = Caller::initialize(&server, ALICE).await;
    let bob = Caller::initialize(&server, BOB).await;

    let done = alice
        .tool(
            1,
            "codex",
            json!({"prompt": "Plan the pelican rollout.", "cwd": "/tmp", "approval-policy": "never"}),
        )
        .await;
    assert_eq!(done["isError"], false, "{done}");
    let thread_id = done["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();

    // History: Alice finds her turn, Bob finds nothing and cannot open it by its id.
    let found = alice
        .tool(
            2,
            "search",
            json!({"query": "pelican rollout", "verbosity": "full"}),
        )
        .await;
    let hits = found["structuredContent"]["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits in {found}"))
        .clone();
    assert!(!hits.is_empty(), "{found}");
    let uid = hits[0]["event_uid"].as_str().unwrap().to_string();
    let searched = bob
        .tool(
            3,
            "search",
            json!({"query": "pelican rollout", "verbosity": "full"}),
        )
        .await;
    assert_eq!(
        searched["structuredContent"]["hits"],
        json!([]),
        "{searched}"
    );
    let opened = bob
        .tool(4, "open", json!({"event_uid": uid, "verbosity": "full"}))
        .await;
    assert_eq!(opened["structuredContent"]["found"], false, "{opened}");
    let opened = alice
        .tool(5, "open", json!({"event_uid": uid, "verbosity": "full"}))
        .await;
    assert_eq!(opened["structuredContent"]["found"], true, "{opened}");

    // Threads: the conversation API lists only the caller's, and Bob's reply to Alice's
    // thread reads exactly like a reply to a thread that does not exist.
    let listed = alice.request(6, "listConversations", json!({})).await;
    let items = listed["result"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{listed}");
    assert_eq!(items[0]["conversationId"], thread_id.as_str());
    let listed = bob.request(7, "listConversations", json!({})).await;
    assert_eq!(listed["result"]["items"], json!([]), "{listed}");

    let stolen = bob
        .tool(
            8,
            "codex-reply",
            json!({"threadId": thread_id, "prompt": "mine now"}),
        )
        .await;
    let missing_id = "019a0000-0000-7000-8000-000000000000";
    let missing = bob
        .tool(
            9,
            "codex-reply",
            json!({"threadId": missing_id, "prompt": "anyone?"}),
        )
        .await;
    assert_eq!(stolen["isError"], true, "{stolen}");
    assert_eq!(
        stolen["content"][0]["text"]
            .as_str()
            .unwrap()
            .replace(&thread_id, "<id>"),
        missing["content"][0]["text"]
            .as_str()
            .unwrap()
            .replace(missing_id, "<id>"),
    );
    // Only Alice's one turn ever reached the model.
    assert_eq!(model.requests().len(), 1);
}
