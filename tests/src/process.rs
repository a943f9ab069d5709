//! Waiting on processes the server starts, by events rather than polling: a pidfd that becomes
//! readable when a process exits, and a named pipe a test script writes a pid to.

#![allow(
    clippy::expect_used,
    reason = "test support: a failed wait fails the test with its message"
)]

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// How long a test waits for a process event before failing.
const PROCESS_TIMEOUT: Duration = Duration::from_secs(20);

/// Waits until `pid` has exited (a zombie counts: its parent may be an init that reaps late).
/// Fails the test after 20 s.
pub async fn wait_for_exit(pid: u32) {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        let error = std::io::Error::last_os_error();
        assert_eq!(
            error.raw_os_error(),
            Some(libc::ESRCH),
            "pidfd_open({pid}): {error}"
        );
        // Already exited and reaped.
        return;
    }
    // SAFETY: the descriptor was just opened and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
    // SAFETY: the AsyncFd owns the OwnedFd, which stays open for the AsyncFd's lifetime.
    let Ok(fd) = (unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }) else {
        panic!("cannot register the pidfd of {pid}");
    };
    let _ready = tokio::time::timeout(PROCESS_TIMEOUT, fd.readable())
        .await
        .unwrap_or_else(|_| panic!("process {pid} did not exit"))
        .expect("poll the pidfd");
}

/// Creates the named pipe `dir/name` for a test script to write to (`echo $! > fifo`).
/// The script's write blocks until [`read_fifo`] opens the pipe, so read it concurrently with
/// anything that waits for the script to finish.
pub fn make_fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let c_path =
        std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path without NUL");
    // SAFETY: a valid NUL-terminated path and a mode.
    let status = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
    assert_eq!(
        status,
        0,
        "mkfifo {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
    path
}

/// Everything written to the named pipe `path` by its first writer, once it closes it.
pub async fn read_fifo(path: &Path) -> String {
    let path = path.to_path_buf();
    let read = tokio::task::spawn_blocking(move || std::fs::read_to_string(path));
    tokio::time::timeout(PROCESS_TIMEOUT, read)
        .await
        .expect("nothing was written to the pipe")
        .expect("the reading thread")
        .expect("read the pipe")
}
