//! The audit trail of a real `tandem app-server`: after a turn whose command the user approved,
//! `$TANDEM_HOME/log/audit.jsonl` (0600) says who started the thread, what was answered and
//! which command ran under which sandbox, with secrets masked; and the provider's key, which
//! has no well-known shape, is masked in the rollout too.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::os::unix::fs::PermissionsExt;

use common::tool_turns::{decision, done, exec, run_turn, setup};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

#[tokio::test]
async fn thread_start_approval_and_command_are_audited_for_the_local_user() {
    let mut setup = setup("untrusted", "workspace-write").await;
    setup.model.push_all([
        exec("call_1", "echo sk-abcdefghijklmnopqrstuvwxyz0123 > key.txt"),
        done(),
    ]);
    run_turn(&mut setup, "run it", vec![decision("accept")]).await;
    let home = setup.server.home.clone();
    let thread_id = setup.thread_id.clone();
    let (_, code) = setup.server.finish().await;
    assert_eq!(code, Some(0));

    let path = home.join("log/audit.jsonl");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("sk-abcdefghijklmnopqrstuvwxyz0123"),
        "{text}"
    );
    let records: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let summary: Vec<(String, String)> = records
        .iter()
        .map(|record| {
            let detail = match record["event"].as_str().unwrap() {
                "thread_started" => format!(
                    "{} {}",
                    record["sandbox"].as_str().unwrap(),
                    record["approval_policy"].as_str().unwrap()
                ),
                "approval" => format!(
                    "{} {}",
                    record["request"].as_str().unwrap(),
                    record["decision"].as_str().unwrap()
                ),
                "command_run" => format!(
                    "{} {}",
                    record["sandbox"].as_str().unwrap(),
                    record["command"].as_str().unwrap()
                ),
                other => other.to_string(),
            };
            (record["event"].as_str().unwrap().to_string(), detail)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "thread_started".to_string(),
                "workspaceWrite untrusted".to_string()
            ),
            ("approval".to_string(), "command accept".to_string()),
            (
                "command_run".to_string(),
                "workspaceWrite /bin/bash -c 'echo sk-[REDACTED] > key.txt'".to_string()
            ),
        ]
    );
    for record in &records {
        assert_eq!(record["principal"], "local");
        assert_eq!(record["front_end"], "app-server");
        assert!(record["ts_ms"].as_i64().unwrap() > 0);
    }
    assert_eq!(records[0]["thread_id"], thread_id.as_str());
}

#[tokio::test]
async fn what_the_operators_policy_refuses_is_audited_with_the_setting() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: "model_provider = \"demo\"\n".to_string(),
        args: ["-c", "clients.max_sandbox=\"workspace-write\""]
            .iter()
            .map(|arg| arg.to_string())
            .collect(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    let cwd = workspace.path().to_string_lossy().to_string();
    let error = server
        .request(
            "command/exec",
            json!({"command": ["true"], "cwd": cwd, "sandboxPolicy": {"type": "dangerFullAccess"}}),
        )
        .await
        .expect_err("beyond the ceiling");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("clients.max_sandbox"),
        "{error}"
    );
    let error = server
        .request(
            "thread/start",
            json!({"cwd": cwd, "config": {"model_providers.evil.base_url": "http://127.0.0.1:9"}}),
        )
        .await
        .expect_err("a key clients may not set");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("model_providers.evil.base_url"),
        "{error}"
    );
    let home = server.home.clone();
    let (_, code) = server.finish().await;
    assert_eq!(code, Some(0));

    let text = std::fs::read_to_string(home.join("log/audit.jsonl")).unwrap();
    let refused: Vec<(String, String)> = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|record| record["event"] == "refused")
        .map(|record| {
            (
                record["setting"].as_str().unwrap().to_string(),
                record["principal"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        refused,
        [
            ("clients.max_sandbox".to_string(), "local".to_string()),
            (
                "clients.allow_client_config".to_string(),
                "local".to_string()
            ),
        ]
    );
}

#[tokio::test]
async fn the_providers_key_is_masked_in_the_rollout_even_without_a_known_shape() {
    const KEY: &str = "plain-provider-secret-0123456789";
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["noted"])));
    let config = format!(
        "{}env_key = \"TANDEM_TEST_PROVIDER_KEY\"\n",
        mock_config(&model.base_url())
    );
    let mut server = TestServer::spawn_with_env(
        SpawnOptions {
            config_toml: config,
            args: Vec::new(),
            home: None,
            cwd: None,
        },
        &[("TANDEM_TEST_PROVIDER_KEY", KEY)],
    )
    .await;
    server.initialize().await;
    let thread = server.request("thread/start", json!({})).await.unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": format!("my key is {KEY}")}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    // The model was sent the key (it is the user's message) ...
    assert!(model.requests()[0].to_string().contains(KEY));
    let home = server.home.clone();
    let (_, code) = server.finish().await;
    assert_eq!(code, Some(0));
    // ... but no rollout keeps it.
    let mut rollouts = Vec::new();
    let mut pending = vec![home.join("sessions")];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                rollouts.push(std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    assert_eq!(rollouts.len(), 1);
    assert!(!rollouts[0].contains(KEY), "{}", rollouts[0]);
    assert!(
        rollouts[0].contains("my key is [REDACTED]"),
        "{}",
        rollouts[0]
    );
}
