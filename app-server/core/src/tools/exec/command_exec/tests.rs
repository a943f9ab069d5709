//! Tests for `command/exec` and its registry.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use app_server_protocol::notifications::CommandExecOutputDeltaNotification;
use app_server_protocol::utility::{
    CommandExecOutputStream, CommandExecParams, CommandExecResizeParams, CommandExecResponse,
    CommandExecTerminalSize, CommandExecTerminateParams, CommandExecWriteParams,
};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use pretty_assertions::assert_eq;

use super::CommandExecRegistry;
use crate::tools::exec::ExecError;
use crate::tools::exec::environment::ShellEnvironmentPolicy;
use crate::tools::exec::test_support::{bash, pid_fifo, read_pid_fifo};

/// The default policy: the test process's environment without its secrets.
fn policy() -> &'static ShellEnvironmentPolicy {
    static POLICY: std::sync::LazyLock<ShellEnvironmentPolicy> =
        std::sync::LazyLock::new(ShellEnvironmentPolicy::default);
    &POLICY
}

fn params(script: &str) -> CommandExecParams {
    CommandExecParams {
        command: bash(script),
        process_id: None,
        tty: None,
        stream_stdin: None,
        stream_stdout_stderr: None,
        output_bytes_cap: None,
        disable_output_cap: None,
        timeout_ms: None,
        disable_timeout: None,
        cwd: None,
        env: None,
        size: None,
        sandbox_policy: None,
    }
}

type Deltas = Arc<Mutex<Vec<CommandExecOutputDeltaNotification>>>;

async fn exec(
    registry: &CommandExecRegistry,
    params: CommandExecParams,
) -> (Result<CommandExecResponse, ExecError>, Deltas) {
    let deltas = Deltas::default();
    let record = Arc::clone(&deltas);
    let argv = params.command.clone();
    let (sender, mut received) = tokio::sync::mpsc::channel(1);
    let collect = async move {
        while let Some(delta) = received.recv().await {
            record.lock().unwrap().push(delta);
        }
    };
    let (result, ()) = tokio::join!(
        registry.exec(params, argv, std::env::temp_dir(), policy(), sender),
        collect
    );
    (result, deltas)
}

fn streamed_text(deltas: &Deltas) -> String {
    let bytes: Vec<u8> = deltas
        .lock()
        .unwrap()
        .iter()
        .flat_map(|delta| BASE64.decode(&delta.delta_base64).unwrap())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Like [`exec`] for a streamed command, and signals `running` at its first output delta:
/// deltas are read only after the command is registered under its processId.
async fn exec_signalling(
    registry: &CommandExecRegistry,
    params: CommandExecParams,
    running: tokio::sync::oneshot::Sender<()>,
) -> (Result<CommandExecResponse, ExecError>, Deltas) {
    let deltas = Deltas::default();
    let record = Arc::clone(&deltas);
    let argv = params.command.clone();
    let (sender, mut received) = tokio::sync::mpsc::channel(1);
    let collect = async move {
        let mut running = Some(running);
        while let Some(delta) = received.recv().await {
            record.lock().unwrap().push(delta);
            if let Some(running) = running.take() {
                let _ = running.send(());
            }
        }
    };
    let (result, ()) = tokio::join!(
        registry.exec(params, argv, std::env::temp_dir(), policy(), sender),
        collect
    );
    (result, deltas)
}

#[tokio::test]
async fn buffers_stdout_and_stderr() {
    let registry = CommandExecRegistry::default();
    let (result, deltas) = exec(&registry, params("echo out; echo err >&2; exit 3")).await;
    assert_eq!(
        result.unwrap(),
        CommandExecResponse {
            exit_code: 3,
            stdout: "out\n".to_owned(),
            stderr: "err\n".to_owned(),
        }
    );
    assert!(deltas.lock().unwrap().is_empty());
}

#[tokio::test]
async fn streams_deltas_instead_of_buffering() {
    let registry = CommandExecRegistry::default();
    let mut params = params("for i in 1 2; do echo s$i; sleep 0.1; done");
    params.process_id = Some("p-1".to_owned());
    params.stream_stdout_stderr = Some(true);
    let (result, deltas) = exec(&registry, params).await;
    assert_eq!(
        result.unwrap(),
        CommandExecResponse {
            exit_code: 0,
            stdout: String::new(),
            stderr: String::new(),
        }
    );
    // Usually one delta per line ("czEK", "czIK"), unless a slow reader sees both at once.
    assert_eq!(streamed_text(&deltas), "s1\ns2\n");
    for delta in deltas.lock().unwrap().iter() {
        assert_eq!(
            (delta.process_id.as_str(), delta.stream, delta.cap_reached),
            ("p-1", CommandExecOutputStream::Stdout, false)
        );
    }
}

#[tokio::test]
async fn caps_streamed_output() {
    let registry = CommandExecRegistry::default();
    let mut params = params("printf 0123456789");
    params.process_id = Some("capped".to_owned());
    params.stream_stdout_stderr = Some(true);
    params.output_bytes_cap = Some(4);
    let (result, deltas) = exec(&registry, params).await;
    assert_eq!(result.unwrap().exit_code, 0);
    assert_eq!(streamed_text(&deltas), "0123");
    assert!(deltas.lock().unwrap().last().unwrap().cap_reached);
}

#[tokio::test]
async fn caps_buffered_output_unless_disabled() {
    let registry = CommandExecRegistry::default();
    let mut capped = params("printf 0123456789");
    capped.output_bytes_cap = Some(4);
    assert_eq!(exec(&registry, capped).await.0.unwrap().stdout, "0123");
    let mut uncapped = params("printf 0123456789");
    uncapped.disable_output_cap = Some(true);
    assert_eq!(
        exec(&registry, uncapped).await.0.unwrap().stdout,
        "0123456789"
    );
}

#[tokio::test]
async fn timeout_exits_124() {
    let registry = CommandExecRegistry::default();
    let mut params = params("echo started; sleep 30");
    params.timeout_ms = Some(300);
    let (result, _) = exec(&registry, params).await;
    assert_eq!(
        result.unwrap(),
        CommandExecResponse {
            exit_code: 124,
            stdout: "started\n".to_owned(),
            stderr: String::new(),
        }
    );
}

#[tokio::test]
async fn applies_environment_changes() {
    let registry = CommandExecRegistry::default();
    let mut params = params("echo \"$TANDEM_TEST_VALUE ${HOME-unset}\"");
    params.env = Some(
        [
            ("TANDEM_TEST_VALUE".to_owned(), Some("set".to_owned())),
            ("HOME".to_owned(), None),
        ]
        .into(),
    );
    assert_eq!(
        exec(&registry, params).await.0.unwrap().stdout,
        "set unset\n"
    );
}

#[tokio::test]
async fn rejects_invalid_requests() {
    let registry = CommandExecRegistry::default();
    let message = |result: Result<CommandExecResponse, ExecError>| result.unwrap_err().to_string();

    let mut empty = params("");
    empty.command.clear();
    assert_eq!(
        message(exec(&registry, empty).await.0),
        "command must not be empty"
    );

    let mut tty = params("true");
    tty.tty = Some(true);
    assert_eq!(
        message(exec(&registry, tty).await.0),
        "command/exec tty or streaming requires a client-supplied processId"
    );

    let mut streaming = params("true");
    streaming.stream_stdin = Some(true);
    assert!(matches!(
        exec(&registry, streaming).await.0,
        Err(ExecError::ProcessIdRequired)
    ));

    let mut missing = params("true");
    missing.command = vec!["/nonexistent/tandem-no-such-program".to_owned()];
    assert_eq!(
        message(exec(&registry, missing).await.0),
        "failed to spawn command: No such file or directory (os error 2)"
    );

    let unknown = "no running command with processId nope";
    let write = CommandExecWriteParams {
        process_id: "nope".to_owned(),
        delta_base64: None,
        close_stdin: Some(true),
    };
    assert_eq!(
        registry.write(write).await.unwrap_err().to_string(),
        unknown
    );
    let resize = CommandExecResizeParams {
        process_id: "nope".to_owned(),
        size: CommandExecTerminalSize { rows: 1, cols: 1 },
    };
    assert_eq!(registry.resize(resize).unwrap_err().to_string(), unknown);
    let terminate = CommandExecTerminateParams {
        process_id: "nope".to_owned(),
    };
    assert_eq!(
        registry.terminate(terminate).unwrap_err().to_string(),
        unknown
    );
}

#[tokio::test]
async fn streams_stdin_and_rejects_a_duplicate_process_id() {
    let registry = CommandExecRegistry::default();
    let mut params = params("echo ready; cat");
    params.process_id = Some("cat-1".to_owned());
    params.stream_stdin = Some(true);
    params.stream_stdout_stderr = Some(true);
    let duplicate = params.clone();
    let (running, is_running) = tokio::sync::oneshot::channel();
    let client = async {
        is_running.await.unwrap();
        assert_eq!(
            exec(&registry, duplicate).await.0.unwrap_err().to_string(),
            "processId cat-1 is already running"
        );
        let write = CommandExecWriteParams {
            process_id: "cat-1".to_owned(),
            delta_base64: Some(BASE64.encode("hello\n")),
            close_stdin: Some(true),
        };
        registry.write(write).await.unwrap();
    };
    let ((result, deltas), ()) = tokio::join!(exec_signalling(&registry, params, running), client);
    assert_eq!(result.unwrap().exit_code, 0);
    assert_eq!(streamed_text(&deltas), "ready\nhello\n");
    // The id is free again once the command finished.
    assert!(registry.find("cat-1").is_err());
}

#[tokio::test]
async fn write_requires_stream_stdin() {
    let registry = CommandExecRegistry::default();
    let mut params = params("echo ready; sleep 5");
    params.process_id = Some("quiet".to_owned());
    params.stream_stdout_stderr = Some(true);
    let (running, is_running) = tokio::sync::oneshot::channel();
    let client = async {
        is_running.await.unwrap();
        let write = CommandExecWriteParams {
            process_id: "quiet".to_owned(),
            delta_base64: Some(BASE64.encode("x")),
            close_stdin: None,
        };
        let error = registry.write(write).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "processId quiet was not started with streamStdin"
        );
        let terminate = CommandExecTerminateParams {
            process_id: "quiet".to_owned(),
        };
        registry.terminate(terminate).unwrap();
    };
    let ((result, _), ()) = tokio::join!(exec_signalling(&registry, params, running), client);
    assert_eq!(result.unwrap().exit_code, 128 + libc::SIGKILL);
}

#[tokio::test]
async fn tty_streams_and_resizes() {
    let registry = CommandExecRegistry::default();
    let mut params = params("tty; stty size; read line; stty size");
    params.process_id = Some("term".to_owned());
    params.tty = Some(true);
    params.size = Some(CommandExecTerminalSize { rows: 30, cols: 90 });
    let (on_delta_sender, mut on_delta) = tokio::sync::mpsc::channel(64);
    let argv = params.command.clone();
    let run = registry.exec(
        params,
        argv,
        std::env::temp_dir(),
        policy(),
        on_delta_sender,
    );
    let client = async {
        let mut text = String::new();
        while !text.contains("30 90") {
            let delta = on_delta.recv().await.unwrap();
            assert_eq!(delta.stream, CommandExecOutputStream::Stdout);
            text.push_str(&String::from_utf8_lossy(
                &BASE64.decode(&delta.delta_base64).unwrap(),
            ));
        }
        assert!(text.starts_with("/dev/pts/"), "{text:?}");
        let resize = CommandExecResizeParams {
            process_id: "term".to_owned(),
            size: CommandExecTerminalSize {
                rows: 50,
                cols: 120,
            },
        };
        registry.resize(resize).unwrap();
        let write = CommandExecWriteParams {
            process_id: "term".to_owned(),
            delta_base64: Some(BASE64.encode("\n")),
            close_stdin: None,
        };
        registry.write(write).await.unwrap();
        while !text.contains("50 120") {
            let Some(delta) = on_delta.recv().await else {
                break;
            };
            text.push_str(&String::from_utf8_lossy(
                &BASE64.decode(&delta.delta_base64).unwrap(),
            ));
        }
        text
    };
    let (result, text) = tokio::join!(run, client);
    assert!(text.contains("50 120"), "{text:?}");
    assert_eq!(
        result.unwrap(),
        CommandExecResponse {
            exit_code: 0,
            stdout: String::new(),
            stderr: String::new(),
        }
    );
}

#[tokio::test]
async fn terminate_all_kills_running_commands() {
    let registry = CommandExecRegistry::default();
    let mut params = params("echo ready; sleep 30");
    params.process_id = Some("long".to_owned());
    params.stream_stdout_stderr = Some(true);
    let (running, is_running) = tokio::sync::oneshot::channel();
    let client = async {
        is_running.await.unwrap();
        registry.terminate_all();
    };
    let ((result, _), ()) = tokio::join!(exec_signalling(&registry, params, running), client);
    assert_eq!(result.unwrap().exit_code, 128 + libc::SIGKILL);
}

#[tokio::test]
async fn terminate_all_kills_commands_without_a_process_id_and_later_ones() {
    let registry = CommandExecRegistry::default();
    let dir = tempfile::tempdir().unwrap();
    let fifo = pid_fifo(dir.path(), "pid");
    let mut long = params(&format!("echo $$ > {}; sleep 30", fifo.display()));
    long.disable_timeout = Some(true);
    let client = async {
        // Nothing is registered without a processId; the command reports that it runs.
        read_pid_fifo(&fifo).await;
        registry.terminate_all();
    };
    let started = std::time::Instant::now();
    let ((result, _), ()) = tokio::join!(exec(&registry, long), client);
    let response = result.unwrap();
    assert_eq!(response.exit_code, 128 + libc::SIGKILL);
    assert!(started.elapsed() < Duration::from_secs(10));

    // A command started after the connection closed is killed as soon as it is spawned.
    let mut late = params("sleep 30");
    late.disable_timeout = Some(true);
    let (result, _) = exec(&registry, late).await;
    assert_eq!(result.unwrap().exit_code, 128 + libc::SIGKILL);
}
