//! Small synchronisation helpers shared by every layer of the core and by the front ends.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, recovering the data if another task panicked while holding it.
///
/// A panic in one turn or one request must not poison state that other threads and sessions
/// share; the data a panicking holder left is still the best we have.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An exclusive `flock` on a lock file, held until dropped (the file is closed). Processes
/// that take the same lock file take turns.
pub struct FileLock {
    _file: std::fs::File,
}

impl FileLock {
    /// Opens (creating it 0600) and locks `path`, waiting for the holder to let go. This
    /// blocks: call it off the async workers.
    pub fn exclusive(path: &Path) -> std::io::Result<FileLock> {
        use std::os::fd::AsRawFd as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)?;
        loop {
            // SAFETY: `flock` on a descriptor this function owns for the call's duration.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(FileLock { _file: file });
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}
