//! Helpers for the command-execution tests: argv building and process liveness.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

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
        environment: std::env::vars_os().collect(),
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

/// Waits (up to ten seconds) for `pid` to die, on a pidfd that becomes readable when it
/// exits; returns whether it did.
pub(super) async fn wait_until_dead(pid: i32) -> bool {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        // ESRCH: already reaped.
        return !is_alive(pid);
    }
    // SAFETY: the descriptor was just opened and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
    // SAFETY: the AsyncFd owns the OwnedFd, which stays open for the AsyncFd's lifetime.
    let Ok(fd) = (unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }) else {
        return false;
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(10), fd.readable()).await,
        Ok(Ok(_))
    )
}

/// A named pipe `dir/name` for a test script to report a pid through (`echo $! > fifo`):
/// [`read_pid_fifo`] then waits for that write instead of polling for a file. The script's
/// write blocks until the test reads, so read it concurrently with anything that waits for
/// the script.
pub(super) fn pid_fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path and a mode.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo");
    path
}

/// The pid a test script wrote to the named pipe `path` (see [`pid_fifo`]).
pub(super) async fn read_pid_fifo(path: &Path) -> i32 {
    let path = path.to_path_buf();
    let read = tokio::task::spawn_blocking(move || std::fs::read_to_string(path));
    let text = tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the script never wrote its pid")
        .unwrap()
        .unwrap();
    text.trim().parse().unwrap()
}
