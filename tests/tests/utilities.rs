//! `command/exec` and its companions against the real binary: buffered and streamed output,
//! stdin, terminals, termination, timeouts, output caps, the sandbox, request errors and
//! shutdown (`spec/app-server-protocol.md` §3.12). `fuzzyFileSearch` and `gitDiffToRemote` are
//! in `utility_search.rs`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::process::{make_fifo, read_fifo, wait_for_exit};
use tandem_tests::server::{SpawnOptions, TestServer};

use crate::common::utilities::{
    decode, exec_until_response, full_access, process_is_gone, started_server,
};

#[tokio::test]
async fn buffered_command_returns_exit_code_stdout_and_stderr() {
    let workdir = tempfile::tempdir().unwrap();
    let workdir_path = workdir.path().canonicalize().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: String::new(),
        args: Vec::new(),
        home: None,
        cwd: Some(workdir_path.clone()),
    })
    .await;
    server.initialize().await;

    let result = server
        .request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "echo out; echo err >&2; exit 3"],
                "sandboxPolicy": full_access(),
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"exitCode": 3, "stdout": "out\n", "stderr": "err\n"})
    );

    // `cwd` defaults to the server's working directory; `env` sets and removes variables.
    let result = server
        .request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "pwd; echo \"$GREETING ${HOME-unset}\""],
                "env": {"GREETING": "hello", "HOME": null},
                "sandboxPolicy": full_access(),
            }),
        )
        .await
        .unwrap();
    let expected = format!("{}\nhello unset\n", workdir_path.display());
    assert_eq!(
        result,
        json!({"exitCode": 0, "stdout": expected, "stderr": ""})
    );

    let other = tempfile::tempdir().unwrap();
    let other_path = other.path().canonicalize().unwrap();
    let result = server
        .request(
            "command/exec",
            json!({"command": ["pwd"], "cwd": other_path, "sandboxPolicy": full_access()}),
        )
        .await
        .unwrap();
    assert_eq!(result["stdout"], format!("{}\n", other_path.display()));
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn streamed_command_sends_base64_deltas_before_its_response() {
    let mut server = started_server("").await;
    let id = server
        .send_request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "echo s1; sleep 0.1; echo e1 >&2; sleep 0.1; echo s2"],
                "processId": "p-1",
                "streamStdoutStderr": true,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    let (deltas, result) = exec_until_response(&mut server, id).await;
    // Streamed bytes are not repeated in the result.
    assert_eq!(
        result,
        Ok(json!({"exitCode": 0, "stdout": "", "stderr": ""}))
    );
    for delta in &deltas {
        assert_eq!(delta["processId"], "p-1");
        assert_eq!(delta["capReached"], false);
    }
    assert_eq!(decode(&deltas, "stdout"), "s1\ns2\n");
    assert_eq!(decode(&deltas, "stderr"), "e1\n");
    // The first delta of the spec's example, byte for byte.
    assert_eq!(deltas[0]["deltaBase64"], "czEK");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn write_feeds_stdin_and_closing_it_ends_the_command() {
    let mut server = started_server("").await;
    let id = server
        .send_request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "echo ready; cat; echo done"],
                "processId": "cat-1",
                "streamStdin": true,
                "streamStdoutStderr": true,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    let ready = server.notification("command/exec/outputDelta").await;
    assert_eq!(decode(&[ready], "stdout"), "ready\n");

    let written = server
        .request(
            "command/exec/write",
            json!({"processId": "cat-1", "deltaBase64": "aGVsbG8K"}),
        )
        .await;
    assert_eq!(written, Ok(json!({})));
    let written = server
        .request(
            "command/exec/write",
            json!({"processId": "cat-1", "deltaBase64": "d29ybGQK", "closeStdin": true}),
        )
        .await;
    assert_eq!(written, Ok(json!({})));

    let (deltas, result) = exec_until_response(&mut server, id).await;
    assert_eq!(
        result,
        Ok(json!({"exitCode": 0, "stdout": "", "stderr": ""}))
    );
    assert_eq!(decode(&deltas, "stdout"), "hello\nworld\ndone\n");

    // The command is gone, and so is its processId.
    let error = server
        .request(
            "command/exec/write",
            json!({"processId": "cat-1", "deltaBase64": "eAo="}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "no running command with processId cat-1"})
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn tty_command_reads_its_terminal_size_after_a_resize() {
    let mut server = started_server("").await;
    let id = server
        .send_request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "stty size; echo ready; read line; stty size"],
                "processId": "tty-1",
                "tty": true,
                "size": {"rows": 20, "cols": 70},
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    let mut seen = String::new();
    while !seen.contains("ready") {
        let delta = server.notification("command/exec/outputDelta").await;
        seen.push_str(&decode(&[delta], "stdout"));
    }
    assert!(seen.contains("20 70"), "{seen:?}");

    let resized = server
        .request(
            "command/exec/resize",
            json!({"processId": "tty-1", "size": {"rows": 30, "cols": 100}}),
        )
        .await;
    assert_eq!(resized, Ok(json!({})));
    let written = server
        .request(
            "command/exec/write",
            json!({"processId": "tty-1", "deltaBase64": "Z28K"}),
        )
        .await;
    assert_eq!(written, Ok(json!({})));

    let (deltas, result) = exec_until_response(&mut server, id).await;
    assert_eq!(result.unwrap()["exitCode"], 0);
    let output = decode(&deltas, "stdout");
    assert!(output.contains("30 100"), "{output:?}");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn terminate_kills_the_whole_process_group() {
    let mut server = started_server("").await;
    let id = server
        .send_request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "sleep 1000 & echo $$ $!; wait"],
                "processId": "sleeper",
                "streamStdoutStderr": true,
                "disableTimeout": true,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    let started = server.notification("command/exec/outputDelta").await;
    let pids = parse_pids(&decode(&[started], "stdout"));
    for pid in &pids {
        assert!(!process_is_gone(*pid), "process {pid} should be running");
    }

    let terminated = server
        .request("command/exec/terminate", json!({"processId": "sleeper"}))
        .await;
    assert_eq!(terminated, Ok(json!({})));
    let (_, result) = exec_until_response(&mut server, id).await;
    assert_eq!(
        result,
        Ok(json!({"exitCode": 137, "stdout": "", "stderr": ""}))
    );
    // The background `sleep` was in the group too.
    for pid in pids {
        wait_for_exit(pid).await;
    }
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn timeout_reports_exit_code_124() {
    let mut server = started_server("").await;
    let started = Instant::now();
    let result = server
        .request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "echo before; sleep 30"],
                "timeoutMs": 300,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    assert_eq!(
        result,
        Ok(json!({"exitCode": 124, "stdout": "before\n", "stderr": ""}))
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn output_cap_truncates_buffered_and_streamed_output() {
    let mut server = started_server("").await;
    let result = server
        .request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "printf 0123456789; printf abcdefghij >&2"],
                "outputBytesCap": 4,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    assert_eq!(
        result,
        Ok(json!({"exitCode": 0, "stdout": "0123", "stderr": "abcd"}))
    );

    let id = server
        .send_request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "printf 01; sleep 0.1; printf 23456789"],
                "processId": "capped",
                "streamStdoutStderr": true,
                "outputBytesCap": 4,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    let (deltas, result) = exec_until_response(&mut server, id).await;
    assert_eq!(result.unwrap()["exitCode"], 0);
    assert_eq!(decode(&deltas, "stdout"), "0123");
    // Only the delta that fills the cap says so; nothing is sent after it.
    let (last, before) = deltas.split_last().unwrap();
    assert_eq!(last["capReached"], true);
    assert!(before.iter().all(|delta| delta["capReached"] == false));
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn sandbox_policy_confines_writes() {
    let mut server = started_server("").await;
    let workspace = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let write = |path: &Path| format!("echo data > {}", path.display());

    // Read-only: nothing may be written.
    let target = workspace.path().join("read-only.txt");
    let result = server
        .request(
            "command/exec",
            json!({
                "command": ["bash", "-c", write(&target)],
                "cwd": workspace.path(),
                "sandboxPolicy": {"type": "readOnly"},
            }),
        )
        .await;
    assert_confined(result, &target);

    // Workspace write: the command's cwd is the workspace, other directories stay read-only.
    let workspace_write = json!({
        "type": "workspaceWrite",
        "excludeSlashTmp": true,
        "excludeTmpdirEnvVar": true,
    });
    let target = outside.path().join("outside.txt");
    let result = server
        .request(
            "command/exec",
            json!({
                "command": ["bash", "-c", write(&target)],
                "cwd": workspace.path(),
                "sandboxPolicy": workspace_write,
            }),
        )
        .await;
    let landlock = assert_confined(result, &target);
    if landlock {
        let target = workspace.path().join("inside.txt");
        let result = server
            .request(
                "command/exec",
                json!({
                    "command": ["bash", "-c", write(&target)],
                    "cwd": workspace.path(),
                    "sandboxPolicy": workspace_write,
                }),
            )
            .await;
        assert_eq!(result.unwrap()["exitCode"], 0);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "data\n");
    }

    // Full access: the control, the same write succeeds.
    let target = workspace.path().join("full-access.txt");
    let result = server
        .request(
            "command/exec",
            json!({
                "command": ["bash", "-c", write(&target)],
                "cwd": workspace.path(),
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    assert_eq!(
        result,
        Ok(json!({"exitCode": 0, "stdout": "", "stderr": ""}))
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "data\n");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn without_a_policy_the_configured_sandbox_mode_applies() {
    let workspace = tempfile::tempdir().unwrap();
    for (config, allowed) in [
        ("", false),
        ("sandbox_mode = \"read-only\"\n", false),
        ("sandbox_mode = \"danger-full-access\"\n", true),
    ] {
        let mut server = started_server(config).await;
        let target = workspace.path().join("configured.txt");
        let result = server
            .request(
                "command/exec",
                json!({
                    "command": ["bash", "-c", format!("echo data > {}", target.display())],
                    "cwd": workspace.path(),
                }),
            )
            .await;
        if allowed {
            assert_eq!(result.unwrap()["exitCode"], 0, "config {config:?}");
            assert!(target.exists());
            std::fs::remove_file(&target).unwrap();
        } else {
            assert_confined(result, &target);
        }
        assert_eq!(server.shutdown().await, Some(0));
    }
}

#[tokio::test]
async fn invalid_command_exec_requests_get_clear_errors() {
    let mut server = started_server("").await;
    let cases = [
        (
            "command/exec",
            json!({"command": []}),
            -32600,
            "command must not be empty",
        ),
        (
            "command/exec",
            json!({"command": ["cat"], "tty": true}),
            -32600,
            "command/exec tty or streaming requires a client-supplied processId",
        ),
        (
            "command/exec",
            json!({"command": ["true"], "timeoutMs": 5, "disableTimeout": true, "sandboxPolicy": full_access()}),
            -32600,
            "timeoutMs and disableTimeout cannot both be set",
        ),
        (
            "command/exec",
            json!({"command": ["no-such-program-anywhere"], "sandboxPolicy": full_access()}),
            -32603,
            "failed to spawn command: No such file or directory (os error 2)",
        ),
        (
            "command/exec",
            json!({"command": "echo hi"}),
            -32600,
            "Invalid request: invalid type: string \"echo hi\", expected a sequence",
        ),
        (
            "command/exec/write",
            json!({"processId": "nope", "deltaBase64": "aGk="}),
            -32600,
            "no running command with processId nope",
        ),
        (
            "command/exec/resize",
            json!({"processId": "nope", "size": {"rows": 1, "cols": 1}}),
            -32600,
            "no running command with processId nope",
        ),
        (
            "command/exec/terminate",
            json!({"processId": "nope"}),
            -32600,
            "no running command with processId nope",
        ),
    ];
    for (method, params, code, message) in cases {
        let error = server.request(method, params.clone()).await.unwrap_err();
        assert_eq!(
            error,
            json!({"code": code, "message": message}),
            "{method} {params}"
        );
    }

    // A processId is unique while its command runs; the errors about a running command name it.
    let id = server
        .send_request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "echo ready; sleep 1000"],
                "processId": "dup",
                "streamStdoutStderr": true,
                "disableTimeout": true,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    server.notification("command/exec/outputDelta").await;
    let running_cases = [
        (
            "command/exec",
            json!({"command": ["true"], "processId": "dup", "sandboxPolicy": full_access()}),
            "processId dup is already running",
        ),
        (
            "command/exec/write",
            json!({"processId": "dup", "deltaBase64": "aGk="}),
            "processId dup was not started with streamStdin",
        ),
        (
            "command/exec/resize",
            json!({"processId": "dup", "size": {"rows": 1, "cols": 1}}),
            "process has no terminal",
        ),
    ];
    for (method, params, message) in running_cases {
        let error = server.request(method, params.clone()).await.unwrap_err();
        assert_eq!(
            error,
            json!({"code": -32600, "message": message}),
            "{method} {params}"
        );
    }
    let terminated = server
        .request("command/exec/terminate", json!({"processId": "dup"}))
        .await;
    assert_eq!(terminated, Ok(json!({})));
    let (_, result) = exec_until_response(&mut server, id).await;
    assert_eq!(result.unwrap()["exitCode"], 137);

    // The server is still serving.
    let result = server
        .request(
            "command/exec",
            json!({"command": ["echo", "still here"], "sandboxPolicy": full_access()}),
        )
        .await;
    assert_eq!(result.unwrap()["stdout"], "still here\n");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn stdin_eof_kills_running_commands() {
    let mut server = started_server("").await;
    let pid_file_dir = tempfile::tempdir().unwrap();
    let pid_file = make_fifo(pid_file_dir.path(), "pids");
    // One streamed command with a processId, one buffered command without: both are killed
    // with their background children.
    server
        .send_request(
            "command/exec",
            json!({
                "command": ["bash", "-c", "sleep 1000 & echo $$ $!; wait"],
                "processId": "streamed",
                "streamStdoutStderr": true,
                "disableTimeout": true,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    server
        .send_request(
            "command/exec",
            json!({
                "command": ["bash", "-c", format!("sleep 1000 & echo $$ $! > {}; wait", pid_file.display())],
                "disableTimeout": true,
                "sandboxPolicy": full_access(),
            }),
        )
        .await;
    let started = server.notification("command/exec/outputDelta").await;
    let mut pids = parse_pids(&decode(&[started], "stdout"));
    pids.extend(parse_pids(&read_fifo(&pid_file).await));
    assert_eq!(pids.len(), 4);
    for pid in &pids {
        assert!(!process_is_gone(*pid), "process {pid} should be running");
    }

    let closed = Instant::now();
    assert_eq!(server.shutdown().await, Some(0));
    // The server waits up to 5 s for running requests; killed commands end them at once.
    assert!(
        closed.elapsed() < Duration::from_secs(4),
        "shutdown took {:?}",
        closed.elapsed()
    );
    for pid in pids {
        wait_for_exit(pid).await;
    }
}

/// Whitespace-separated process ids.
fn parse_pids(text: &str) -> Vec<u32> {
    text.split_whitespace()
        .map(|pid| pid.parse().unwrap())
        .collect()
}

/// Asserts that a `command/exec` writing `target` did not write it: either the sandbox
/// denied the write, or (on a kernel without Landlock) the request was refused with a clear
/// error. Returns whether the sandbox is enforced here.
fn assert_confined(result: Result<Value, Value>, target: &Path) -> bool {
    assert!(!target.exists(), "{} was written", target.display());
    match result {
        Ok(result) => {
            assert_ne!(result["exitCode"], 0, "{result}");
            let stderr = result["stderr"].as_str().unwrap();
            assert!(stderr.contains("Permission denied"), "{stderr}");
            true
        }
        Err(error) => {
            assert!(
                !tandem_tests::sandbox_required(),
                "TANDEM_REQUIRE_LANDLOCK=1 but the sandbox is not enforced here: {error}"
            );
            assert_eq!(error["code"], -32603, "{error}");
            let message = error["message"].as_str().unwrap();
            assert!(
                message.starts_with("failed to sandbox command: ") && message.contains("landlock"),
                "{message}"
            );
            false
        }
    }
}
