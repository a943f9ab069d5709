//! The first-generation conversation API on `tandem mcp-server`, over real stdio and over
//! streamable HTTP, against the mock model over real HTTP: `newConversation`,
//! `sendUserMessage` with its `codex/event` stream up to `task_complete`, an
//! `execCommandApproval` answered `approved` and one answered `denied`, `listConversations`,
//! `archiveConversation`, and `-32601` for methods unknown to both APIs.
//! Over HTTP the events and the approval requests come on the session's GET stream.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{config, done, exec};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, McpStdio, SseReader};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};

/// One MCP session, over stdio or over HTTP (JSON-mode POSTs plus the GET stream).
enum Client {
    Stdio(McpStdio),
    Http {
        server: McpHttp,
        session: String,
        stream: SseReader,
    },
}

impl Client {
    async fn stdio(config_toml: &str) -> Client {
        let mut server = McpStdio::spawn(config_toml, &[]).await;
        server.initialize("2025-06-18", json!({})).await;
        Client::Stdio(server)
    }

    async fn http(config_toml: &str) -> Client {
        let server = McpHttp::spawn(config_toml, &[]).await;
        let (session, _) = server.initialize("2025-06-18", json!({})).await;
        let get = server
            .client
            .get(&server.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .send()
            .await
            .unwrap();
        assert_eq!(get.status(), 200);
        Client::Http {
            server,
            session,
            stream: SseReader::new(get),
        }
    }

    /// Sends a request and returns its whole response message.
    async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        match self {
            Client::Stdio(server) => server.request(json!(id), method, params).await,
            Client::Http {
                server, session, ..
            } => {
                let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                let response = server
                    .post_accept(Some(session), &body, "application/json")
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), 200, "{method}");
                response.json().await.unwrap()
            }
        }
    }

    /// The next message that is not part of a request's answer (events, server requests).
    async fn next(&mut self) -> Value {
        match self {
            Client::Stdio(server) => server.next().await,
            Client::Http { stream, .. } => loop {
                let event = stream.next().await.expect("the GET stream stays open");
                let message = event.json();
                if !message.is_null() {
                    return message;
                }
            },
        }
    }

    /// Answers a server request.
    async fn answer(&mut self, id: &Value, result: Value) {
        let message = json!({"jsonrpc": "2.0", "id": id, "result": result});
        match self {
            Client::Stdio(server) => server.send(&message).await,
            Client::Http {
                server, session, ..
            } => {
                let response = server.post(Some(session), &message).send().await.unwrap();
                assert_eq!(response.status(), 202);
            }
        }
    }

    async fn shutdown(self) {
        match self {
            Client::Stdio(server) => assert_eq!(server.shutdown().await, Some(0)),
            Client::Http {
                server, session, ..
            } => {
                let deleted = server
                    .client
                    .delete(&server.url)
                    .header("mcp-session-id", &session)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(deleted.status(), 204);
            }
        }
    }
}

fn event_type(message: &Value) -> Option<&str> {
    (message["method"] == "codex/event")
        .then(|| message["params"]["msg"]["type"].as_str())
        .flatten()
}

/// Reads until the conversation's turn ends, answering the legacy approvals with
/// `decisions` in turn; every message read.
async fn run_turn(client: &mut Client, decisions: &[&str]) -> Vec<Value> {
    let mut decisions = decisions.iter();
    let mut seen = Vec::new();
    loop {
        let message = client.next().await;
        assert_ne!(
            message["method"], "elicitation/create",
            "a conversation is asked with the legacy requests"
        );
        if message["method"] == "execCommandApproval" || message["method"] == "applyPatchApproval" {
            let decision = decisions.next().expect("an answer for the approval");
            client
                .answer(&message["id"], json!({"decision": decision}))
                .await;
        }
        let end = matches!(event_type(&message), Some("task_complete" | "turn_aborted"));
        seen.push(message);
        if end {
            return seen;
        }
    }
}

/// The whole conversation scenario, over either transport.
async fn conversation_scenario(mut client: Client, model: &MockModel, workspace: &str) {
    // Methods unknown to MCP and to the conversation API.
    let unknown = client.request(1, "thread/start", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let unknown = client.request(2, "noSuchMethod", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let bad = client
        .request(3, "sendUserMessage", json!({"items": []}))
        .await;
    assert_eq!(bad["error"]["code"], -32600, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("conversationId"),
        "{bad}"
    );

    let created = client
        .request(
            4,
            "newConversation",
            json!({"cwd": workspace, "approvalPolicy": "untrusted", "sandbox": "danger-full-access"}),
        )
        .await;
    let result = &created["result"];
    let conversation_id = result["conversationId"].as_str().unwrap().to_string();
    assert_eq!(result["model"], "mock-model");
    assert!(
        result["rolloutPath"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{conversation_id}.jsonl"))
    );
    let configured = client.next().await;
    assert_eq!(event_type(&configured), Some("session_configured"));
    assert_eq!(
        configured["params"]["_meta"],
        json!({"requestId": null, "threadId": conversation_id})
    );
    assert_eq!(configured["params"]["msg"]["session_id"], conversation_id);
    assert_eq!(configured["params"]["msg"]["cwd"], workspace);
    let startup = client.next().await;
    assert_eq!(event_type(&startup), Some("mcp_startup_complete"));

    // A turn with two commands: the first approved, the second denied.
    model.push_all([
        exec("call_1", "touch approved.txt && echo made-it"),
        exec("call_2", "touch denied.txt"),
        done(),
    ]);
    let sent = client
        .request(
            5,
            "sendUserMessage",
            json!({"conversationId": conversation_id, "items": [{"type": "text", "data": {"text": "go"}}]}),
        )
        .await;
    assert_eq!(sent["result"], json!({}), "{sent}");
    let messages = run_turn(&mut client, &["approved", "denied"]).await;
    let workspace_path = std::path::Path::new(workspace);
    assert!(workspace_path.join("approved.txt").exists());
    assert!(!workspace_path.join("denied.txt").exists());
    let request = messages
        .iter()
        .find(|message| message["method"] == "execCommandApproval")
        .unwrap();
    assert_eq!(
        request["params"],
        json!({
            "conversationId": conversation_id, "callId": "call_1", "approvalId": null,
            "command": ["/bin/bash", "-c", "touch approved.txt && echo made-it"],
            "cwd": workspace, "reason": null,
            "parsedCmd": [{"type": "unknown", "cmd": "touch approved.txt && echo made-it"}],
        })
    );
    // Every event of the turn names the conversation and the request that started it.
    for message in messages
        .iter()
        .filter(|message| event_type(message).is_some())
    {
        assert_eq!(
            message["params"]["_meta"],
            json!({"requestId": 5, "threadId": conversation_id}),
            "{message}"
        );
    }
    let order: Vec<String> = messages
        .iter()
        .filter_map(|message| match event_type(message) {
            Some(kind) => Some(kind.to_string()),
            None => message["method"].as_str().map(str::to_string),
        })
        .filter(|kind| kind.starts_with("exec") || kind.starts_with("task_"))
        .collect();
    assert_eq!(
        order,
        vec![
            "task_started",
            "exec_approval_request",
            "execCommandApproval",
            "exec_command_begin",
            "exec_command_output_delta",
            "exec_command_end",
            "exec_approval_request",
            "execCommandApproval",
            "exec_command_end",
            "task_complete",
        ]
    );
    let ends: Vec<&Value> = messages
        .iter()
        .filter(|message| event_type(message) == Some("exec_command_end"))
        .map(|message| &message["params"]["msg"])
        .collect();
    assert_eq!(ends[0]["status"], "completed");
    assert_eq!(ends[0]["aggregated_output"], "made-it\n");
    assert_eq!(ends[1]["status"], "declined");
    let complete = &messages.last().unwrap()["params"]["msg"];
    assert_eq!(complete["last_agent_message"], "done");

    // A plain text turn: the agent's text streams, then the turn completes.
    model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["Hello", " there"],
    )));
    let sent = client
        .request(
            6,
            "sendUserMessage",
            json!({"conversationId": conversation_id, "items": [{"type": "text", "data": {"text": "hi"}}]}),
        )
        .await;
    assert_eq!(sent["result"], json!({}));
    let messages = run_turn(&mut client, &[]).await;
    let deltas: String = messages
        .iter()
        .filter(|message| event_type(message) == Some("agent_message_content_delta"))
        .map(|message| message["params"]["msg"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "Hello there");
    assert_eq!(
        messages.last().unwrap()["params"]["msg"]["last_agent_message"],
        "Hello there"
    );

    // The conversation is listed, then archived.
    let listed = client.request(7, "listConversations", json!({})).await;
    let items = listed["result"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{listed}");
    assert_eq!(items[0]["conversationId"], conversation_id);
    assert_eq!(items[0]["preview"], "go");
    let archived = client
        .request(
            8,
            "archiveConversation",
            json!({"conversationId": conversation_id, "rolloutPath": result["rolloutPath"]}),
        )
        .await;
    assert_eq!(archived["result"], json!({}), "{archived}");
    let listed = client.request(9, "listConversations", json!({})).await;
    assert_eq!(listed["result"]["items"], json!([]), "{listed}");

    let agent = client.request(10, "getUserAgent", Value::Null).await;
    assert!(
        agent["result"]["userAgent"]
            .as_str()
            .unwrap()
            .starts_with("mcp"),
        "{agent}"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn conversations_over_stdio() {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let config_toml = config(
        &model.base_url(),
        "untrusted",
        "danger-full-access",
        "responses",
    );
    let client = Client::stdio(&config_toml).await;
    conversation_scenario(client, &model, workspace.path().to_str().unwrap()).await;
}

#[tokio::test]
async fn conversations_over_http() {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let config_toml = config(
        &model.base_url(),
        "untrusted",
        "danger-full-access",
        "responses",
    );
    let client = Client::http(&config_toml).await;
    conversation_scenario(client, &model, workspace.path().to_str().unwrap()).await;
}

#[tokio::test]
async fn a_distributed_server_refuses_conversations_clearly() {
    let model = MockModel::start().await;
    let redis = tandem_tests::cluster::Redis::start().await;
    let config_toml = config(
        &model.base_url(),
        "never",
        "danger-full-access",
        "responses",
    );
    let server = McpHttp::spawn(&config_toml, &["--redis", &redis.url]).await;
    let (session, _) = server.initialize("2025-06-18", json!({})).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "newConversation", "params": {}});
    let response = server
        .post_accept(Some(&session), &body, "application/json")
        .send()
        .await
        .unwrap();
    let response: Value = response.json().await.unwrap();
    assert_eq!(response["error"]["code"], -32600, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not available on a distributed (--redis) server"),
        "{response}"
    );
}
