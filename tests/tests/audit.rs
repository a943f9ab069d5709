//! The audit trail of a real `tandem app-server`: after a turn whose command the user approved,
//! `$TANDEM_HOME/log/audit.jsonl` (0600) says who started the thread, what was answered and
//! which command ran under which sandbox, with secrets masked.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::os::unix::fs::PermissionsExt;

use common::tool_turns::{decision, done, exec, run_turn, setup};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::server::{SpawnOptions, TestServer};

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
