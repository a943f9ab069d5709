//! `process/*` (experimental) through the real binary: a process answered once it runs, its
//! streamed output, stdin, kill and exit notifications, the operator's ceiling (refused below
//! `danger-full-access`), the policy-built environment, and bad params.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::server::TestServer;

use tandem_tests::process::wait_for_exit;

use crate::common::utilities::{decode, process_is_gone};

async fn experimental_server(config_toml: &str) -> TestServer {
    let mut server = TestServer::spawn(config_toml).await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    server
}

fn cwd() -> String {
    std::env::temp_dir().to_string_lossy().into_owned()
}

/// The `process/exited` of `handle`, after collecting the `process/outputDelta`s before it.
async fn exited(server: &mut TestServer, handle: &str) -> (Vec<Value>, Value) {
    let mut deltas = Vec::new();
    loop {
        let message = server
            .take_matching(|message| {
                matches!(
                    message["method"].as_str(),
                    Some("process/outputDelta" | "process/exited")
                )
            })
            .await;
        let params = message["params"].clone();
        assert_eq!(params["processHandle"], handle, "{message}");
        if message["method"] == "process/exited" {
            return (deltas, params);
        }
        deltas.push(params);
    }
}

#[tokio::test]
async fn a_buffered_process_reports_its_output_when_it_exits() {
    let mut server = experimental_server("").await;
    let spawned = server
        .request(
            "process/spawn",
            json!({"command": ["sh", "-c", "echo out; echo err >&2; exit 3"], "cwd": cwd(), "processHandle": "p1"}),
        )
        .await;
    assert_eq!(spawned, Ok(json!({})));
    let (deltas, exit) = exited(&mut server, "p1").await;
    assert!(deltas.is_empty(), "{deltas:?}");
    assert_eq!(
        exit,
        json!({
            "processHandle": "p1",
            "exitCode": 3,
            "stdout": "out\n",
            "stderr": "err\n",
            "stdoutCapReached": false,
            "stderrCapReached": false,
            "outputDrainTimedOut": false,
        })
    );
    // The handle is free again once the process ended.
    let again = server
        .request(
            "process/spawn",
            json!({"command": ["true"], "cwd": cwd(), "processHandle": "p1"}),
        )
        .await;
    assert_eq!(again, Ok(json!({})));
    exited(&mut server, "p1").await;
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_streaming_process_takes_stdin_and_can_be_killed() {
    let mut server = experimental_server("").await;
    let spawned = server
        .request(
            "process/spawn",
            json!({
                "command": ["sh", "-c", "read line; echo got $line; sleep 600"],
                "cwd": cwd(),
                "processHandle": "cat",
                "streamStdin": true,
                "streamStdoutStderr": true,
                "timeoutMs": null,
            }),
        )
        .await;
    assert_eq!(spawned, Ok(json!({})));
    let duplicate = server
        .request(
            "process/spawn",
            json!({"command": ["true"], "cwd": cwd(), "processHandle": "cat"}),
        )
        .await
        .unwrap_err();
    assert_eq!(duplicate["code"], -32600, "{duplicate}");
    let written = server
        .request(
            "process/writeStdin",
            json!({"processHandle": "cat", "deltaBase64": "aGVsbG8K"}),
        )
        .await;
    assert_eq!(written, Ok(json!({})));
    let delta = server.notification("process/outputDelta").await;
    assert_eq!(delta["stream"], "stdout");
    assert_eq!(
        decode(std::slice::from_ref(&delta), "stdout"),
        "got hello\n"
    );
    assert_eq!(
        server
            .request("process/kill", json!({"processHandle": "cat"}))
            .await,
        Ok(json!({}))
    );
    let (_, exit) = exited(&mut server, "cat").await;
    assert_eq!(exit["exitCode"], 137, "{exit}");
    assert_eq!(
        exit["stdout"], "",
        "streamed output is not repeated: {exit}"
    );
    let unknown = server
        .request("process/kill", json!({"processHandle": "cat"}))
        .await
        .unwrap_err();
    assert_eq!(unknown["code"], -32600, "{unknown}");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn the_environment_is_the_policy_built_one() {
    let mut server = experimental_server(
        "[shell_environment_policy]\ninherit = \"none\"\nset = { FROM_POLICY = \"yes\" }\n",
    )
    .await;
    server
        .request(
            "process/spawn",
            json!({
                "command": ["sh", "-c", "echo \"$FROM_POLICY/$FROM_REQUEST/${HOME:-unset}\""],
                "cwd": cwd(),
                "processHandle": "env",
                "env": {"FROM_REQUEST": "also"},
            }),
        )
        .await
        .unwrap();
    let (_, exit) = exited(&mut server, "env").await;
    assert_eq!(exit["stdout"], "yes/also/unset\n", "{exit}");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn below_full_access_no_process_runs() {
    let mut server = experimental_server("[clients]\nmax_sandbox = \"workspace-write\"\n").await;
    let marker = tempfile::tempdir().unwrap();
    let planted = marker.path().join("ran");
    let error = server
        .request(
            "process/spawn",
            json!({"command": ["touch", planted.to_str().unwrap()], "cwd": cwd(), "processHandle": "p"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "process/spawn runs a process outside the sandbox, which this server does not let clients do (clients.max_sandbox = \"workspace-write\")"})
    );
    assert!(!planted.exists());
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn bad_params_get_clear_errors() {
    let mut server = experimental_server("").await;
    let empty = server
        .request(
            "process/spawn",
            json!({"command": [], "cwd": cwd(), "processHandle": "e"}),
        )
        .await
        .unwrap_err();
    assert_eq!(empty["code"], -32600, "{empty}");
    let relative = server
        .request(
            "process/spawn",
            json!({"command": ["true"], "cwd": "relative", "processHandle": "r"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        relative,
        json!({"code": -32600, "message": "process/spawn cwd must be absolute: \"relative\""})
    );
    let missing = server
        .request("process/spawn", json!({"command": ["true"]}))
        .await
        .unwrap_err();
    assert_eq!(missing["code"], -32600, "{missing}");
    let not_found = server
        .request(
            "process/spawn",
            json!({"command": ["/no/such/program"], "cwd": cwd(), "processHandle": "n"}),
        )
        .await
        .unwrap_err();
    assert_eq!(not_found["code"], -32603, "{not_found}");
    let stdin = server
        .request(
            "process/writeStdin",
            json!({"processHandle": "none", "deltaBase64": "eA=="}),
        )
        .await
        .unwrap_err();
    assert_eq!(stdin["code"], -32600, "{stdin}");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn closing_the_connection_kills_its_processes() {
    let mut server = experimental_server("").await;
    server
        .request(
            "process/spawn",
            json!({
                "command": ["sh", "-c", "echo $$; sleep 600"],
                "cwd": cwd(),
                "processHandle": "sleeper",
                "streamStdoutStderr": true,
                "timeoutMs": null,
            }),
        )
        .await
        .unwrap();
    let started = server.notification("process/outputDelta").await;
    let pid: u32 = decode(std::slice::from_ref(&started), "stdout")
        .trim()
        .parse()
        .unwrap();
    assert!(!process_is_gone(pid), "process {pid} should be running");
    assert_eq!(server.shutdown().await, Some(0));
    wait_for_exit(pid).await;
}
