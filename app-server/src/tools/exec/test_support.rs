//! Helpers for the command-execution tests: argv building and process liveness.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::tools::exec::process::{SpawnSpec, TerminalSize};

/// `bash -c <script>` as an argv.
pub(super) fn bash(script: &str) -> Vec<String> {
    vec!["bash".to_owned(), "-c".to_owned(), script.to_owned()]
}

/// A spec for `bash -c <script>` on pipes without stdin, in the temp directory.
pub(super) fn bash_spec(script: &str) -> SpawnSpec {
    SpawnSpec {
        argv: bash(script),
        cwd: std::env::temp_dir(),
        env: BTreeMap::new(),
        stdin: false,
        tty: None,
    }
}

/// A spec for `bash -c <script>` on a terminal of the given size.
pub(super) fn bash_tty_spec(script: &str, rows: u16, cols: u16) -> SpawnSpec {
    SpawnSpec {
        tty: Some(TerminalSize { rows, cols }),
        ..bash_spec(script)
    }
}

/// Whether `pid` names a live process; a zombie counts as dead (its parent, which may be an
/// init that never reaps, has just not collected it yet).
pub(super) fn is_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks whether the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Waits up to two seconds for `pid` to die; returns whether it did.
pub(super) async fn wait_until_dead(pid: i32) -> bool {
    for _ in 0..100 {
        if !is_alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// Reads a pid a test script wrote to `path`, waiting up to two seconds for it to appear.
pub(super) async fn read_pid_file(path: &PathBuf) -> i32 {
    for _ in 0..100 {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no pid in {}", path.display());
}
