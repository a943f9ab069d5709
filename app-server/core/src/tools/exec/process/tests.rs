//! Tests for spawning: process groups, pipes, terminals and killing.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tokio::sync::mpsc;

use super::{OutputChunk, OutputStream, SpawnSpec, TerminalSize, spawn};
use crate::tools::exec::ExecError;
use crate::tools::exec::test_support::{bash_spec, bash_tty_spec, is_alive, wait_until_dead};

/// Reads output until `needle` shows up; returns everything read.
async fn read_until(output: &mut mpsc::Receiver<OutputChunk>, needle: &str) -> String {
    let mut text = String::new();
    let read = async {
        while !text.contains(needle) {
            let Some(chunk) = output.recv().await else {
                break;
            };
            text.push_str(&String::from_utf8_lossy(&chunk.bytes));
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), read).await;
    assert!(text.contains(needle), "{needle:?} not in {text:?}");
    text
}

#[tokio::test]
async fn reports_exit_codes_and_signals() {
    let process = spawn(bash_spec("exit 3")).unwrap();
    assert_eq!(process.wait().await.exit_code, 3);
    let process = spawn(bash_spec("kill -TERM $$")).unwrap();
    assert_eq!(process.wait().await.exit_code, 128 + libc::SIGTERM);
    assert_eq!(process.exit_outcome().map(|o| o.exit_code), Some(143));
}

#[tokio::test]
async fn leads_its_own_session_and_process_group() {
    let process = spawn(bash_spec("sleep 5")).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", process.pid())).unwrap();
    // After the command name: state, ppid, pgrp, session.
    let (_, fields) = stat.rsplit_once(')').unwrap();
    let fields: Vec<&str> = fields.split_whitespace().collect();
    let pid = process.pid().to_string();
    assert_eq!((fields[2], fields[3]), (pid.as_str(), pid.as_str()));
}

#[tokio::test]
async fn streams_chunks_before_exit() {
    let mut process = spawn(bash_spec("for i in 1 2 3; do echo $i; sleep 0.1; done")).unwrap();
    let mut output = process.take_output().unwrap();
    let first = output.recv().await.unwrap();
    assert_eq!(first.stream, OutputStream::Stdout);
    assert!(first.bytes.starts_with(b"1\n"), "{first:?}");
    assert_eq!(process.exit_outcome(), None);
    read_until(&mut output, "3").await;
    assert_eq!(process.wait().await.exit_code, 0);
}

#[tokio::test]
async fn the_environment_is_exactly_the_specs() {
    let mut spec = bash_spec("echo \"$TANDEM_TEST_VALUE ${HOME-unset}\"");
    // The server's HOME is not inherited: only what the spec names reaches the command.
    spec.environment = BTreeMap::from([
        (OsString::from("TANDEM_TEST_VALUE"), OsString::from("set")),
        (OsString::from("PATH"), std::env::var_os("PATH").unwrap()),
    ]);
    let mut process = spawn(spec).unwrap();
    let mut output = process.take_output().unwrap();
    assert_eq!(read_until(&mut output, "\n").await, "set unset\n");
}

#[tokio::test]
async fn writes_and_closes_stdin() {
    let spec = SpawnSpec {
        stdin: true,
        ..bash_spec("cat")
    };
    let mut process = spawn(spec).unwrap();
    let mut output = process.take_output().unwrap();
    process.write_stdin(b"hello\n").await.unwrap();
    assert_eq!(read_until(&mut output, "\n").await, "hello\n");
    process.control().close_stdin().await.unwrap();
    assert_eq!(process.wait().await.exit_code, 0);
    assert!(matches!(
        process.write_stdin(b"late").await,
        Err(ExecError::StdinClosed)
    ));
}

#[tokio::test]
async fn stdin_is_dev_null_unless_asked_for() {
    let process = spawn(bash_spec("cat")).unwrap();
    assert_eq!(process.wait().await.exit_code, 0);
    assert!(matches!(
        process.write_stdin(b"x").await,
        Err(ExecError::StdinClosed)
    ));
    assert!(matches!(
        process.control().resize(TerminalSize { rows: 1, cols: 1 }),
        Err(ExecError::NoTerminal)
    ));
}

#[tokio::test]
async fn spawn_failure_names_the_io_error() {
    let mut spec = bash_spec("");
    spec.argv = vec!["/nonexistent/tandem-no-such-program".to_owned()];
    let error = spawn(spec).unwrap_err();
    assert_eq!(
        error.to_string(),
        "failed to spawn command: No such file or directory (os error 2)"
    );
    let mut spec = bash_spec("");
    spec.argv = Vec::new();
    assert!(matches!(spawn(spec), Err(ExecError::EmptyCommand)));
}

#[tokio::test]
async fn drop_kills_the_whole_tree() {
    let mut process = spawn(bash_spec("sleep 100 & echo $!; sleep 100")).unwrap();
    let mut output = process.take_output().unwrap();
    let grandchild: i32 = read_until(&mut output, "\n").await.trim().parse().unwrap();
    let pid = i32::try_from(process.pid()).unwrap();
    assert!(is_alive(pid) && is_alive(grandchild));
    drop(process);
    assert!(wait_until_dead(pid).await, "child {pid} survived");
    assert!(
        wait_until_dead(grandchild).await,
        "grandchild {grandchild} survived"
    );
}

#[tokio::test]
async fn kill_is_idempotent() {
    let process = spawn(bash_spec("sleep 100")).unwrap();
    process.kill();
    process.kill();
    assert_eq!(process.wait().await.exit_code, 128 + libc::SIGKILL);
    process.control().kill();
}

#[tokio::test]
async fn terminal_is_a_pts_with_the_requested_size() {
    let mut process = spawn(bash_tty_spec("tty; stty size", 24, 80)).unwrap();
    let mut output = process.take_output().unwrap();
    let text = read_until(&mut output, "24 80").await;
    assert!(text.starts_with("/dev/pts/"), "{text:?}");
    assert!(process.has_terminal());
    assert_eq!(process.wait().await.exit_code, 0);
}

#[tokio::test]
async fn terminal_resize_reaches_the_process() {
    let spec = bash_tty_spec("stty size; read line; stty size", 24, 80);
    let mut process = spawn(spec).unwrap();
    let mut output = process.take_output().unwrap();
    read_until(&mut output, "24 80").await;
    process
        .control()
        .resize(TerminalSize {
            rows: 40,
            cols: 100,
        })
        .unwrap();
    process.write_stdin(b"\n").await.unwrap();
    read_until(&mut output, "40 100").await;
    assert_eq!(process.wait().await.exit_code, 0);
}

#[tokio::test]
async fn terminal_output_ends_after_exit() {
    let mut process = spawn(bash_tty_spec("echo done", 24, 80)).unwrap();
    let mut output = process.take_output().unwrap();
    let mut text = String::new();
    let read_all = async {
        while let Some(chunk) = output.recv().await {
            text.push_str(&String::from_utf8_lossy(&chunk.bytes));
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read_all)
        .await
        .unwrap();
    // The terminal turns "\n" into "\r\n".
    assert_eq!(text, "done\r\n");
}

#[tokio::test]
async fn terminal_close_stdin_sends_end_of_file() {
    let mut process = spawn(bash_tty_spec("cat; echo after", 24, 80)).unwrap();
    let mut output = process.take_output().unwrap();
    process.write_stdin(b"ping\n").await.unwrap();
    read_until(&mut output, "ping\r\nping\r\n").await;
    process.control().close_stdin().await.unwrap();
    read_until(&mut output, "after").await;
    assert_eq!(process.wait().await.exit_code, 0);
}
