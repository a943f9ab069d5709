//! Accounts through the real binary: `account/*`, `getAuthStatus`, the stored key in
//! `auth.json` (permissions, use by the provider, restart, logout), unsupported logins, and
//! rate limits from the mock model's `x-ratelimit-*` headers. Shapes follow
//! `account-and-legacy.md` field by field.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::os::unix::fs::PermissionsExt;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

/// A variable no test environment sets, so the stored key is the one used.
const UNSET_KEY_VAR: &str = "TANDEM_TEST_ACCOUNT_KEY_NEVER_SET";

fn config_with_key_var(base_url: &str) -> String {
    format!("{}env_key = \"{UNSET_KEY_VAR}\"\n", mock_config(base_url))
}

async fn spawn_in(home: &std::path::Path, config: &str) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config.to_string(),
        args: Vec::new(),
        home: Some(home.to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
}

async fn run_one_turn(server: &mut TestServer, cwd: &std::path::Path) {
    let thread = server
        .request("thread/start", json!({"cwd": cwd.to_str().unwrap()}))
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}),
        )
        .await
        .unwrap();
    server.notification("turn/completed").await;
}

#[tokio::test]
async fn an_api_key_login_is_stored_used_kept_and_removed() {
    let model = MockModel::start().await;
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let config = config_with_key_var(&model.base_url());
    let mut server = spawn_in(home.path(), &config).await;

    assert_eq!(
        server.request("account/read", json!({})).await.unwrap(),
        json!({"account": null, "userId": null, "requiresOpenaiAuth": true, "workspaceRouting": null})
    );
    assert_eq!(
        server.request("getAuthStatus", json!({})).await.unwrap(),
        json!({"authMethod": null, "authToken": null, "requiresOpenaiAuth": true})
    );

    let login = server
        .request(
            "account/login/start",
            json!({"type": "apiKey", "apiKey": "sk-test-123"}),
        )
        .await
        .unwrap();
    assert_eq!(login, json!({"type": "apiKey"}));
    assert_eq!(
        server.notification("account/login/completed").await,
        json!({"loginId": null, "success": true, "error": null, "onboardingEntrypoint": null})
    );
    assert_eq!(
        server.notification("account/updated").await,
        json!({"authMode": "apikey", "planType": null})
    );
    assert_eq!(
        server.notification("authStatusChange").await,
        json!({"authMethod": "apikey"})
    );

    let auth_file = home.path().join("auth.json");
    let mode = std::fs::metadata(&auth_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "auth.json must be private");
    let stored: Value = serde_json::from_slice(&std::fs::read(&auth_file).unwrap()).unwrap();
    assert_eq!(
        stored,
        json!({"auth_mode": "apikey", "OPENAI_API_KEY": "sk-test-123"})
    );
    let leftovers: Vec<String> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp"))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());

    assert_eq!(
        server.request("account/read", json!({})).await.unwrap(),
        json!({"account": {"type": "apiKey"}, "userId": null, "requiresOpenaiAuth": true, "workspaceRouting": null})
    );
    assert_eq!(
        server
            .request("getAuthStatus", json!({"includeToken": true}))
            .await
            .unwrap(),
        json!({"authMethod": "apikey", "authToken": "sk-test-123", "requiresOpenaiAuth": true})
    );
    assert_eq!(
        server
            .request("getAuthStatus", json!({"includeToken": false}))
            .await
            .unwrap()["authToken"],
        Value::Null
    );

    // The provider uses the stored key.
    model.push(MockResponse::sse(responses_text("msg_1", &["hello"])));
    run_one_turn(&mut server, workspace.path()).await;
    let received = model.received();
    let post = received
        .iter()
        .find(|request| request.path.ends_with("/responses"))
        .unwrap();
    assert_eq!(
        post.headers.get("authorization").map(String::as_str),
        Some("Bearer sk-test-123")
    );
    server.shutdown().await;

    // A new process of the same home reads it back.
    let mut server = spawn_in(home.path(), &config).await;
    assert_eq!(
        server.request("account/read", json!({})).await.unwrap()["account"],
        json!({"type": "apiKey"})
    );

    // Logout removes it; no params at all is accepted.
    server
        .send(&json!({"id": 9000, "method": "account/logout"}))
        .await;
    assert_eq!(server.response(9000).await.unwrap(), json!({}));
    assert_eq!(
        server.notification("account/updated").await,
        json!({"authMode": null, "planType": null})
    );
    assert_eq!(
        server.notification("authStatusChange").await,
        json!({"authMethod": null})
    );
    assert!(!auth_file.exists());
    assert_eq!(
        server.request("account/read", json!({})).await.unwrap()["account"],
        Value::Null
    );

    // Without a key the provider refuses to send the request, and says why.
    let thread = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}),
        )
        .await
        .unwrap();
    let completed = server.notification("turn/completed").await;
    assert_eq!(completed["turn"]["status"], "failed");
    assert!(
        completed["turn"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains(UNSET_KEY_VAR)
    );
}

#[tokio::test]
async fn other_logins_and_bad_keys_answer_clear_errors() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;

    for params in [
        json!({"type": "chatgpt"}),
        json!({"type": "chatgptDeviceCode"}),
        json!({"type": "chatgptAuthTokens", "accessToken": "a", "chatgptAccountId": "b"}),
        json!({"type": "amazonBedrock", "apiKey": "k", "region": "us-east-1"}),
    ] {
        let error = server
            .request("account/login/start", params.clone())
            .await
            .unwrap_err();
        assert_eq!(error["code"], -32600, "{params}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("is not supported")
                && message.contains(params["type"].as_str().unwrap()),
            "{message}"
        );
    }
    let error = server
        .request(
            "account/login/start",
            json!({"type": "apiKey", "apiKey": "  "}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["message"], "apiKey must not be empty");
    let error = server
        .request("account/login/start", json!({"type": "apiKey"}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600);

    assert_eq!(
        server
            .request("account/login/cancel", json!({"loginId": "login-1"}))
            .await
            .unwrap(),
        json!({"status": "notFound"})
    );
    // The default provider declares no key variable: nothing is required.
    assert_eq!(
        server.request("account/read", json!({})).await.unwrap(),
        json!({"account": null, "userId": null, "requiresOpenaiAuth": false, "workspaceRouting": null})
    );
    assert!(!server.home.join("auth.json").exists());
}

#[tokio::test]
async fn rate_limits_come_from_the_response_headers() {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;

    let empty_snapshot = json!({
        "limitId": null, "limitName": null, "normalModelSlug": null, "primary": null,
        "secondary": null, "credits": null, "individualLimit": null,
        "spendControlReached": null, "planType": null, "rateLimitReachedType": null,
    });
    assert_eq!(
        server
            .request("account/rateLimits/read", json!({}))
            .await
            .unwrap(),
        json!({
            "ordinaryUsageAllowed": null, "rateLimits": empty_snapshot,
            "rateLimitsByLimitId": null, "rateLimitResetCredits": null, "accountId": null,
            "rateLimitUpsell": null,
        })
    );

    // A response without the headers announces nothing.
    model.push(MockResponse::sse(responses_text("msg_0", &["plain"])));
    run_one_turn(&mut server, workspace.path()).await;
    assert!(
        !server
            .log
            .iter()
            .any(|message| message["method"] == "account/rateLimits/updated")
    );

    let before = unix_now();
    model.push(
        MockResponse::sse(responses_text("msg_1", &["limited"]))
            .with_header("x-ratelimit-limit-requests", "100")
            .with_header("x-ratelimit-remaining-requests", "75")
            .with_header("x-ratelimit-reset-requests", "30s")
            .with_header("x-ratelimit-limit-tokens", "1000")
            .with_header("x-ratelimit-remaining-tokens", "900")
            .with_header("x-ratelimit-reset-tokens", "1m0s"),
    );
    run_one_turn(&mut server, workspace.path()).await;
    let methods: Vec<&str> = server
        .log
        .iter()
        .filter_map(|message| message["method"].as_str())
        .collect();
    let usage = methods
        .iter()
        .rposition(|method| *method == "thread/tokenUsage/updated")
        .unwrap();
    assert_eq!(methods[usage + 1], "account/rateLimits/updated");
    let updated = server
        .log
        .iter()
        .find(|message| message["method"] == "account/rateLimits/updated")
        .unwrap()["params"]
        .clone();
    let snapshot = &updated["rateLimits"];
    assert_eq!(snapshot["limitId"], "mock");
    assert_eq!(snapshot["limitName"], "Mock");
    assert_eq!(snapshot["primary"]["usedPercent"], 25.0);
    assert_eq!(snapshot["primary"]["windowDurationMins"], Value::Null);
    let resets_at = snapshot["primary"]["resetsAt"].as_i64().unwrap();
    assert!((before + 30..=unix_now() + 30).contains(&resets_at));
    assert_eq!(snapshot["secondary"]["usedPercent"], 10.0);
    let resets_at = snapshot["secondary"]["resetsAt"].as_i64().unwrap();
    assert!((before + 60..=unix_now() + 60).contains(&resets_at));
    for field in [
        "normalModelSlug",
        "credits",
        "individualLimit",
        "spendControlReached",
        "planType",
        "rateLimitReachedType",
    ] {
        assert_eq!(snapshot[field], Value::Null, "{field}");
    }

    let read = server
        .request("account/rateLimits/read", json!({}))
        .await
        .unwrap();
    assert_eq!(&read["rateLimits"], snapshot);
    assert_eq!(read["rateLimitsByLimitId"], json!({"mock": snapshot}));
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}
