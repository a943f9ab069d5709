//! Tests for unified-exec sessions.

use std::time::Duration;

use pretty_assertions::assert_eq;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{ExecStep, PendingOutput, StartRequest, UnifiedExec, WriteRequest};
use crate::tools::exec::ExecError;
use crate::tools::exec::test_support::{bash, pid_fifo, read_pid_fifo, wait_until_dead};

fn start_request(script: &str, tty: bool, yield_ms: u64) -> (StartRequest, mpsc::Receiver<String>) {
    let (on_output, deltas) = mpsc::channel(4096);
    let request = StartRequest {
        argv: bash(script),
        cwd: std::env::temp_dir(),
        environment: std::env::vars_os().collect(),
        tty,
        yield_time: Some(Duration::from_millis(yield_ms)),
        max_output_tokens: None,
        on_output,
        cancel: CancellationToken::new(),
    };
    (request, deltas)
}

fn write_request(session_id: i32, chars: &str, yield_ms: u64) -> WriteRequest {
    WriteRequest {
        session_id,
        chars: chars.to_owned(),
        yield_time: Some(Duration::from_millis(yield_ms)),
        max_output_tokens: None,
        cancel: CancellationToken::new(),
    }
}

/// Polls (or writes) until the session exits; returns all output and the last step.
async fn finish(unified: &UnifiedExec, session_id: i32, chars: &str) -> (String, ExecStep) {
    let mut output = String::new();
    let mut chars = chars;
    for _ in 0..10 {
        let step = unified
            .write_stdin(write_request(session_id, chars, 250))
            .await
            .unwrap();
        output.push_str(&step.output);
        if step.exit_code.is_some() {
            return (output, step);
        }
        chars = "";
    }
    panic!("session {session_id} did not exit; output {output:?}");
}

#[tokio::test]
async fn command_that_finishes_within_the_yield_reports_its_exit() {
    let unified = UnifiedExec::new();
    let (request, mut deltas) = start_request("echo hi; exit 7", false, 5_000);
    let step = unified.start(request).await.unwrap();
    assert_eq!(
        (
            step.session_id,
            step.exit_code,
            step.output.as_str(),
            step.original_token_count
        ),
        (None, Some(7), "hi\n", 1)
    );
    assert!(step.wall_time < Duration::from_secs(2), "{step:?}");
    assert_eq!(deltas.recv().await.as_deref(), Some("hi\n"));
    assert_eq!(unified.session_ids(), Vec::<i32>::new());
}

#[tokio::test]
async fn long_running_command_becomes_a_session_fed_by_write_stdin() {
    let unified = UnifiedExec::new();
    let (request, _deltas) = start_request("cat", true, 250);
    let step = unified.start(request).await.unwrap();
    let Some(session_id) = step.session_id else {
        panic!("cat exited: {step:?}");
    };
    assert_eq!((step.exit_code, step.process_id), (None, session_id));
    assert!(session_id >= 1000);
    assert_eq!(unified.session_ids(), vec![session_id]);

    let step = unified
        .write_stdin(write_request(session_id, "hello\n", 300))
        .await
        .unwrap();
    // The terminal echoes the line, then cat prints it.
    assert_eq!(
        (step.session_id, step.output.as_str()),
        (Some(session_id), "hello\r\nhello\r\n")
    );

    // Ctrl-D ends cat's input.
    let (_, step) = finish(&unified, session_id, "\u{4}").await;
    assert_eq!((step.session_id, step.exit_code), (None, Some(0)));
    let error = unified
        .write_stdin(write_request(session_id, "", 250))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("write_stdin failed: unknown session id {session_id}")
    );
}

#[tokio::test]
async fn polling_collects_output_produced_between_calls() {
    let unified = UnifiedExec::new();
    let (request, _deltas) = start_request("echo one; sleep 0.4; echo two", false, 250);
    let first = unified.start(request).await.unwrap();
    let session_id = first.session_id.unwrap();
    // A poll waits at least 5 s, but returns as soon as the process exits.
    let step = unified
        .write_stdin(write_request(session_id, "", 0))
        .await
        .unwrap();
    assert_eq!(
        (step.exit_code, format!("{}{}", first.output, step.output)),
        (Some(0), "one\ntwo\n".to_owned())
    );
    assert!(step.output.ends_with("two\n"), "{step:?}");
    assert!(step.wall_time < Duration::from_secs(2), "{step:?}");
}

#[tokio::test]
async fn writing_to_a_session_without_terminal_is_refused() {
    let unified = UnifiedExec::new();
    let (request, _deltas) = start_request("sleep 5", false, 250);
    let session_id = unified.start(request).await.unwrap().session_id.unwrap();
    let error = unified
        .write_stdin(write_request(session_id, "x", 250))
        .await
        .unwrap_err();
    assert!(matches!(error, ExecError::SessionStdinClosed), "{error}");
    unified.terminate_all();
}

#[tokio::test]
async fn terminate_all_kills_every_session() {
    let dir = tempfile::tempdir().unwrap();
    let unified = UnifiedExec::new();
    let mut pids = Vec::new();
    for name in ["a", "b"] {
        let pid_file = pid_fifo(dir.path(), name);
        let script = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
        let (request, _deltas) = start_request(&script, false, 250);
        let (step, pid) = tokio::join!(unified.start(request), read_pid_fifo(&pid_file));
        assert!(step.unwrap().session_id.is_some());
        pids.push(pid);
    }
    assert_eq!(unified.session_ids().len(), 2);
    unified.terminate_all();
    assert_eq!(unified.session_ids(), Vec::<i32>::new());
    for pid in pids {
        assert!(wait_until_dead(pid).await, "{pid} survived");
    }
}

#[tokio::test]
async fn dropping_the_table_kills_the_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = pid_fifo(dir.path(), "pid");
    let unified = UnifiedExec::new();
    let script = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
    let (request, _deltas) = start_request(&script, true, 250);
    let (step, grandchild) = tokio::join!(unified.start(request), read_pid_fifo(&pid_file));
    assert!(step.unwrap().session_id.is_some());
    drop(unified);
    assert!(wait_until_dead(grandchild).await, "{grandchild} survived");
}

#[tokio::test]
async fn cancelled_start_kills_the_process() {
    let unified = UnifiedExec::new();
    let (request, mut deltas) = start_request("echo started; sleep 30", false, 10_000);
    let cancel = request.cancel.clone();
    // Cancel once the command has printed: it is running.
    let canceller = async {
        let first = deltas.recv().await.unwrap();
        assert!(first.starts_with("started"), "{first:?}");
        cancel.cancel();
    };
    let (step, ()) = tokio::join!(unified.start(request), canceller);
    let step = step.unwrap();
    assert_eq!(
        (step.session_id, step.exit_code),
        (None, Some(128 + libc::SIGKILL))
    );
    assert!(step.wall_time < Duration::from_secs(2), "{step:?}");
}

#[tokio::test]
async fn output_is_truncated_to_the_budget() {
    let unified = UnifiedExec::new();
    let (mut request, _deltas) = start_request("seq 1 2000", false, 5_000);
    request.max_output_tokens = Some(10);
    let step = unified.start(request).await.unwrap();
    // `seq 1 2000` prints 8893 bytes.
    assert_eq!(step.original_token_count, 2224);
    assert!(step.output.starts_with("1\n2\n3\n"), "{:?}", step.output);
    assert!(step.output.ends_with("1999\n2000\n"), "{:?}", step.output);
    assert!(
        step.output.contains("tokens truncated"),
        "{:?}",
        step.output
    );
}

#[tokio::test]
async fn spawn_failure_is_an_error() {
    let unified = UnifiedExec::new();
    let (mut request, _deltas) = start_request("", false, 250);
    request.argv = vec!["/nonexistent/tandem-no-such-program".to_owned()];
    let error = unified.start(request).await.unwrap_err();
    assert!(
        error.to_string().starts_with("failed to spawn command: "),
        "{error}"
    );
}

#[test]
fn pending_output_keeps_head_and_tail_and_split_characters() {
    let mut pending = PendingOutput::default();
    pending.push("a€".as_bytes());
    pending.push(&"€".as_bytes()[..1]);
    let taken = pending.take(false);
    assert_eq!((taken.head, taken.total), ("a€".as_bytes().to_vec(), 4));
    pending.push(&"€".as_bytes()[1..]);
    let taken = pending.take(true);
    assert_eq!((taken.head, taken.total), ("€".as_bytes().to_vec(), 3));

    let half = super::PENDING_OUTPUT_CAP / 2;
    pending.push(&vec![b'h'; half]);
    pending.push(&vec![b'm'; 1000]);
    pending.push(&vec![b't'; half]);
    let taken = pending.take(true);
    assert_eq!(taken.total, 2 * half + 1000);
    assert_eq!(taken.head, vec![b'h'; half]);
    assert_eq!(taken.tail, vec![b't'; half]);
}

#[tokio::test]
async fn tables_and_calls_can_move_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    fn assert_send<T: Send>(_: &T) {}
    assert_send_sync::<UnifiedExec>();
    assert_send_sync::<crate::tools::exec::command_exec::CommandExecRegistry>();
    let unified = UnifiedExec::new();
    let (request, _deltas) = start_request("true", false, 250);
    assert_send(&unified.start(request));
    assert_send(&unified.write_stdin(write_request(1, "", 250)));
    let registry = crate::tools::exec::command_exec::CommandExecRegistry::default();
    let params = serde_json::from_value(serde_json::json!({"command": ["true"]})).unwrap();
    assert_send(&registry.exec(
        params,
        bash("true"),
        std::env::temp_dir(),
        &crate::tools::exec::environment::ShellEnvironmentPolicy::default(),
        tokio::sync::mpsc::channel(1).0,
    ));
}
