//! Tests for running a process to completion.

use std::time::Duration;

use pretty_assertions::assert_eq;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{RunOptions, RunResult, StreamedChunk, TIMEOUT_EXIT_CODE, run};
use crate::tools::exec::process::{OutputStream, spawn};
use crate::tools::exec::test_support::{bash_spec, pid_fifo, read_pid_fifo, wait_until_dead};

fn options() -> RunOptions {
    RunOptions {
        timeout: Some(Duration::from_secs(5)),
        output_cap: None,
        on_chunk: None,
        buffer_output: true,
        cancel: CancellationToken::new(),
    }
}

async fn run_bash(script: &str, options: RunOptions) -> RunResult {
    run(spawn(bash_spec(script)).unwrap(), options).await
}

#[tokio::test]
async fn separates_and_interleaves_streams() {
    let script = "echo a; sleep 0.05; echo b >&2; sleep 0.05; echo c; exit 3";
    let result = run_bash(script, options()).await;
    assert_eq!(
        (
            result.exit_code,
            result.stdout.as_slice(),
            result.stderr.as_slice(),
            result.aggregated.as_slice(),
            result.cap_reached,
            result.timed_out,
            result.cancelled
        ),
        (
            3,
            &b"a\nc\n"[..],
            &b"b\n"[..],
            &b"a\nb\nc\n"[..],
            false,
            false,
            false
        )
    );
}

#[tokio::test]
async fn streams_chunks_as_they_arrive() {
    let started = tokio::time::Instant::now();
    let (on_chunk, mut chunks) = mpsc::channel(1);
    let options = RunOptions {
        on_chunk: Some(on_chunk),
        ..options()
    };
    let collect = async {
        let mut seen = Vec::new();
        while let Some(StreamedChunk { chunk, cap_reached }) = chunks.recv().await {
            let text = String::from_utf8_lossy(&chunk.bytes).into_owned();
            seen.push((text, started.elapsed(), cap_reached));
        }
        seen
    };
    let (result, seen) = tokio::join!(
        run_bash("for i in 1 2 3; do echo $i; sleep 0.1; done", options),
        collect
    );
    let text: String = seen.iter().map(|(text, _, _)| text.as_str()).collect();
    assert_eq!(text, "1\n2\n3\n");
    assert!(seen[0].0.starts_with("1\n"), "{seen:?}");
    // The first line came long before the end of the run.
    assert!(
        seen[0].1 + Duration::from_millis(150) < result.duration,
        "{seen:?}"
    );
    assert_eq!(result.stdout, b"1\n2\n3\n");
}

#[tokio::test]
async fn timeout_kills_the_tree_and_reports_124() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = pid_fifo(dir.path(), "grandchild");
    let script = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
    let options = RunOptions {
        timeout: Some(Duration::from_millis(300)),
        ..options()
    };
    let (result, grandchild) = tokio::join!(run_bash(&script, options), read_pid_fifo(&pid_file));
    assert_eq!(
        (result.exit_code, result.timed_out),
        (TIMEOUT_EXIT_CODE, true)
    );
    assert!(result.duration < Duration::from_secs(2), "{result:?}");
    assert!(wait_until_dead(grandchild).await, "grandchild survived");
}

#[tokio::test]
async fn cancellation_kills() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = pid_fifo(dir.path(), "grandchild");
    let script = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
    let cancel = CancellationToken::new();
    let options = RunOptions {
        cancel: cancel.clone(),
        ..options()
    };
    // Cancel once the script reports its background child: the whole tree is running.
    let canceller = async {
        let grandchild = read_pid_fifo(&pid_file).await;
        cancel.cancel();
        grandchild
    };
    let (result, grandchild) = tokio::join!(run_bash(&script, options), canceller);
    assert_eq!(
        (result.exit_code, result.cancelled, result.timed_out),
        (128 + libc::SIGKILL, true, false)
    );
    assert!(wait_until_dead(grandchild).await, "grandchild survived");
}

#[tokio::test]
async fn caps_output_per_stream_and_keeps_draining() {
    let (on_chunk, mut chunks) = mpsc::channel(1);
    let options = RunOptions {
        output_cap: Some(100),
        on_chunk: Some(on_chunk),
        ..options()
    };
    let collect = async {
        let mut seen = Vec::new();
        while let Some(StreamedChunk { chunk, cap_reached }) = chunks.recv().await {
            seen.push((chunk.stream, chunk.bytes.len(), cap_reached));
        }
        seen
    };
    // 200 KB is more than a pipe holds: the run only ends if the reader keeps draining.
    let script = "head -c 200000 /dev/zero | tr '\\0' a; echo err >&2";
    let (result, seen) = tokio::join!(run_bash(script, options), collect);
    assert_eq!(result.exit_code, 0);
    assert_eq!(result.stdout, vec![b'a'; 100]);
    assert_eq!(result.stderr, b"err\n");
    assert!(result.cap_reached);
    let stdout_bytes: usize = seen
        .iter()
        .filter(|(stream, _, _)| *stream == OutputStream::Stdout)
        .map(|(_, len, _)| len)
        .sum();
    assert_eq!(stdout_bytes, 100);
    // Only the chunk that filled the cap says so; nothing follows it.
    let stdout_flags: Vec<bool> = seen
        .iter()
        .filter(|(stream, _, _)| *stream == OutputStream::Stdout)
        .map(|(_, _, cap_reached)| *cap_reached)
        .collect();
    assert_eq!(stdout_flags.last(), Some(&true));
    assert_eq!(stdout_flags.iter().filter(|flag| **flag).count(), 1);
    assert!(seen.contains(&(OutputStream::Stderr, 4, false)), "{seen:?}");
}

#[tokio::test]
async fn unbuffered_run_only_streams() {
    let (on_chunk, mut chunks) = mpsc::channel(1);
    tokio::spawn(async move { while chunks.recv().await.is_some() {} });
    let options = RunOptions {
        on_chunk: Some(on_chunk),
        buffer_output: false,
        ..options()
    };
    let result = run_bash("echo out; echo err >&2", options).await;
    assert_eq!(
        (result.stdout, result.stderr, result.aggregated),
        (Vec::new(), Vec::new(), Vec::new())
    );
}

#[tokio::test]
async fn background_child_holding_the_pipe_does_not_hang_the_run() {
    let result = run_bash("sleep 30 & echo started", options()).await;
    assert_eq!(
        (result.exit_code, result.stdout.as_slice()),
        (0, &b"started\n"[..])
    );
    assert!(result.duration < Duration::from_secs(2), "{result:?}");
}
