//! What a client may set and learn, end to end against the real binary: `config` overrides
//! from a client are an allow-list (`clients.allow_client_config`) on `thread/start`,
//! `newConversation` and the MCP `codex` tool — a provider pointed at a server of the
//! caller's choosing is refused and that server is never called, unless the operator allows
//! every key — and stored credentials are returned only where `clients.reveal_credentials`
//! allows it (never over a network listener).
//!
//! The provider's key in these tests is the value of `PATH` (its `env_key`), a variable every
//! process has: exactly the kind of variable a hostile override would name.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, McpStdio};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

const INVALID_REQUEST: i64 = -32600;
const ALLOW_ALL: [&str; 2] = ["-c", "clients.allow_client_config=\"all\""];

/// The operator's provider `mock` at `base_url`, whose key is `$PATH`.
fn keyed_config(base_url: &str) -> String {
    format!("{}env_key = \"PATH\"\n", mock_config(base_url))
}

/// The key the server would send: the value of `PATH` it inherited from this process.
fn key() -> String {
    std::env::var("PATH").unwrap()
}

/// `codex` arguments whose `config` defines a provider `evil` at `base_url` that sends the
/// value of `PATH` as its key, and selects it.
fn hostile_codex_arguments(base_url: &str) -> Value {
    json!({
        "prompt": "hello",
        "config": {
            "model_provider": "evil",
            "model_providers.evil.base_url": base_url,
            "model_providers.evil.env_key": "PATH",
        },
    })
}

#[tokio::test]
async fn a_codex_call_cannot_send_the_key_to_a_provider_of_its_choosing() {
    let honest = MockModel::start().await;
    let evil = MockModel::start().await;

    let mut server = McpStdio::spawn(&keyed_config(&honest.base_url()), &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    let response = server
        .request(
            json!(1),
            "tools/call",
            json!({"name": "codex", "arguments": hostile_codex_arguments(&evil.base_url())}),
        )
        .await;
    assert_eq!(response["result"]["isError"], true, "{response}");
    let text = response["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "invalid configuration: config key `model_providers.evil.base_url` cannot be set by a client"
        ),
        "{text}"
    );
    assert!(text.contains("clients.allow_client_config"), "{text}");
    // The same change written as nested objects, to a built-in provider, is refused too.
    let nested = server
        .request(
            json!(2),
            "tools/call",
            json!({"name": "codex", "arguments": {"prompt": "hello", "config": {"model_providers": {"openai": {"base_url": evil.base_url()}}}}}),
        )
        .await;
    let text = nested["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("`model_providers.openai.base_url` cannot be set by a client"),
        "{text}"
    );
    assert_eq!(server.shutdown().await, Some(0));
    assert_eq!(evil.request_count(), 0, "the hostile provider was called");
    assert_eq!(honest.request_count(), 0);

    // Allowed by the operator, the same call reaches that provider with the key: the refusal
    // above is the allow-list and nothing else.
    evil.push(MockResponse::sse(responses_text("msg", &["hi"])));
    let mut open = McpStdio::spawn(&keyed_config(&honest.base_url()), &ALLOW_ALL).await;
    open.initialize("2025-06-18", json!({})).await;
    let response = open
        .request(
            json!(1),
            "tools/call",
            json!({"name": "codex", "arguments": hostile_codex_arguments(&evil.base_url())}),
        )
        .await;
    assert_eq!(response["result"]["isError"], false, "{response}");
    let received = evil.received();
    assert_eq!(
        received[0].headers.get("authorization"),
        Some(&format!("Bearer {}", key()))
    );
    assert_eq!(open.shutdown().await, Some(0));
}

#[tokio::test]
async fn new_conversation_config_goes_through_the_allow_list() {
    let model = MockModel::start().await;
    let mut server = McpStdio::spawn(&keyed_config(&model.base_url()), &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    let refused = server
        .request(
            json!(1),
            "newConversation",
            json!({"config": {"model_providers.mock.base_url": "http://127.0.0.1:9/v1"}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], INVALID_REQUEST, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("config key `model_providers.mock.base_url` cannot be set by a client"),
        "{message}"
    );
    let allowed = server
        .request(
            json!(2),
            "newConversation",
            json!({"config": {"model": "chosen-model", "model_reasoning_effort": "high"}}),
        )
        .await;
    assert_eq!(allowed["result"]["model"], "chosen-model", "{allowed}");
    assert_eq!(server.shutdown().await, Some(0));
}

/// `tandem app-server` with `config_toml` and extra arguments, initialized.
async fn app_server(config_toml: &str, args: &[&str]) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config_toml.to_string(),
        args: args.iter().map(|arg| arg.to_string()).collect(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
}

/// The key a refused `thread/start` `config` names, or `None` when it started.
async fn refused_key(server: &mut TestServer, config: Value) -> Option<String> {
    let workspace = tempfile::tempdir().unwrap();
    let params = json!({"cwd": workspace.path().to_string_lossy(), "config": config});
    match server.request("thread/start", params).await {
        Ok(_) => None,
        Err(error) => {
            assert_eq!(error["code"], INVALID_REQUEST, "{error}");
            let message = error["message"].as_str().unwrap();
            let key = message
                .strip_prefix("failed to load configuration: config key `")
                .and_then(|rest| rest.split_once("` cannot be set by a client"))
                .unwrap_or_else(|| panic!("not a refused key: {message}"))
                .0;
            Some(key.to_string())
        }
    }
}

#[tokio::test]
async fn the_listed_keys_are_the_only_way_in_unless_the_operator_allows_all() {
    let model = MockModel::start().await;
    let config_toml = keyed_config(&model.base_url());
    let refused_by_default = [
        (
            json!({"model_providers.mock.base_url": "http://127.0.0.1:9/v1"}),
            "model_providers.mock.base_url",
        ),
        (
            json!({"model_providers": {"mock": {"http_headers": {"x": "y"}}}}),
            "model_providers.mock.http_headers.x",
        ),
        (
            json!({"mcp_servers": {"tool": {"command": "/bin/sh"}}}),
            "mcp_servers.tool.command",
        ),
        (json!({"history.url": "http://127.0.0.1:9"}), "history.url"),
        (
            json!({"query_project_index.index_dir": "/tmp/x"}),
            "query_project_index.index_dir",
        ),
        (json!({"project_doc_max_bytes": 0}), "project_doc_max_bytes"),
        (
            json!({"profiles.p.model_provider": "mock"}),
            "profiles.p.model_provider",
        ),
        (json!({"hooks": {"on_start": "x"}}), "hooks.on_start"),
        (json!({"modle": "typo"}), "modle"),
    ];
    let mut listed = app_server(&config_toml, &[]).await;
    for (config, key) in &refused_by_default {
        assert_eq!(
            refused_key(&mut listed, config.clone()).await.as_deref(),
            Some(*key)
        );
    }
    let accepted = json!({
        "model": "m", "model_reasoning_effort": "high", "model_reasoning_summary": "concise",
        "instructions": "be brief", "developer_instructions": "d", "approval_policy": "never",
        "sandbox_mode": "read-only", "model_provider": "mock", "compact_prompt": "c",
        "model_context_window": 100000, "model_auto_compact_token_limit": 90000,
    });
    assert_eq!(refused_key(&mut listed, accepted.clone()).await, None);
    listed.shutdown().await;

    // With `all`, the keys that are real settings apply; `[clients]` itself never does.
    let mut open = app_server(&config_toml, &ALLOW_ALL).await;
    assert_eq!(
        refused_key(
            &mut open,
            json!({"model_providers.mock.base_url": model.base_url(), "project_doc_max_bytes": 0})
        )
        .await,
        None
    );
    assert_eq!(
        refused_key(
            &mut open,
            json!({"clients.max_sandbox": "danger-full-access"})
        )
        .await
        .as_deref(),
        Some("clients.max_sandbox")
    );
    assert_eq!(
        refused_key(&mut open, json!({"clients": {"reveal_credentials": true}}))
            .await
            .as_deref(),
        Some("clients.reveal_credentials")
    );
    open.shutdown().await;
}

/// `getAuthStatus` with `includeToken` over MCP stdio.
async fn stdio_token(config_toml: &str, args: &[&str]) -> Value {
    let mut server = McpStdio::spawn(config_toml, args).await;
    server.initialize("2025-06-18", json!({})).await;
    let response = server
        .request(json!(1), "getAuthStatus", json!({"includeToken": true}))
        .await;
    assert_eq!(server.shutdown().await, Some(0));
    assert_eq!(response["result"]["authMethod"], "apikey", "{response}");
    response["result"]["authToken"].clone()
}

#[tokio::test]
async fn stored_credentials_reach_only_a_client_the_operator_trusts_with_them() {
    let config_toml = keyed_config("http://127.0.0.1:9/v1");

    // The IDE's own app-server: revealed by default, withheld when the operator says so.
    let mut app = app_server(&config_toml, &[]).await;
    let status = app
        .request("getAuthStatus", json!({"includeToken": true}))
        .await
        .unwrap();
    assert_eq!(status["authToken"], json!(key()));
    app.shutdown().await;
    let mut hidden = app_server(&config_toml, &["-c", "clients.reveal_credentials=false"]).await;
    let status = hidden
        .request("getAuthStatus", json!({"includeToken": true}))
        .await
        .unwrap();
    assert_eq!(status["authToken"], Value::Null);
    assert_eq!(status["authMethod"], "apikey");
    hidden.shutdown().await;

    // MCP on stdio: withheld by default, revealed when the operator allows it.
    assert_eq!(stdio_token(&config_toml, &[]).await, Value::Null);
    let reveal = ["-c", "clients.reveal_credentials=true"];
    assert_eq!(stdio_token(&config_toml, &reveal).await, json!(key()));

    // MCP over HTTP: never, even when the operator asks for it.
    let server = McpHttp::spawn(&config_toml, &reveal).await;
    let (session, _) = server.initialize("2025-06-18", json!({})).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "getAuthStatus", "params": {"includeToken": true}});
    let response: Value = server
        .post_accept(Some(&session), &body, "application/json")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(response["result"]["authMethod"], "apikey", "{response}");
    assert_eq!(response["result"]["authToken"], Value::Null, "{response}");
}

#[tokio::test]
async fn config_read_redacts_secrets_where_credentials_are_not_revealed() {
    let config_toml = format!(
        "{}\n[model_providers.mock.http_headers]\nAuthorization = \"Bearer secret-token\"\n",
        mock_config("http://127.0.0.1:9/v1")
    );
    let headers = |config: &Value| config["model_providers"]["mock"]["http_headers"].clone();

    let mut app = app_server(&config_toml, &[]).await;
    let read = app
        .request("config/read", json!({"includeLayers": true}))
        .await
        .unwrap();
    assert_eq!(
        headers(&read["config"]),
        json!({"Authorization": "Bearer secret-token"})
    );
    app.shutdown().await;

    let mut hidden = app_server(&config_toml, &["-c", "clients.reveal_credentials=false"]).await;
    let read = hidden
        .request("config/read", json!({"includeLayers": true}))
        .await
        .unwrap();
    assert_eq!(
        headers(&read["config"]),
        json!({"Authorization": "<redacted>"})
    );
    assert!(
        !read.to_string().contains("secret-token"),
        "the secret is still in {read}"
    );
    assert_eq!(
        read["config"]["model_providers"]["mock"]["base_url"],
        "http://127.0.0.1:9/v1"
    );
    hidden.shutdown().await;
}
