//! stdin driven by the runtime's reactor when it is a pipe or socket.
//!
//! `tokio::io::stdin()` runs every read on the blocking thread pool: a thread to start before
//! the first request can be read, and a thread handoff per read. When stdin is a pipe or a
//! socket (what an IDE spawning the server gives it), it is switched to non-blocking mode and
//! polled through [`AsyncFd`] instead, so reads happen on the task that asked for them.
//! Anything else (a terminal, a regular file) keeps tokio's blocking stdin, because a
//! terminal's non-blocking mode would leak into the shell that shares it. The original
//! file-status flags are restored when the stream is dropped.
//!
//! stdout stays on tokio's blocking writer on purpose: while one write is in flight on the
//! pool, the writer task keeps collecting lines, so a streaming turn goes out in large writes.
//! Written through the reactor, each write completed at once, so a streaming turn went out in
//! many small writes and its server CPU per delta about doubled (`tandem-bench`).
//! A dedicated writer thread blocked on the queue did the same: woken for nearly every line, it
//! wrote a line at a time (5.2–5.9 µs of server CPU per delta against 3.2–3.5 µs).

use std::fs::File;
use std::io::{self, Read};
#[cfg(test)]
use std::os::fd::{AsFd, OwnedFd};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, Interest, ReadBuf};

/// The server's stdin: reactor-driven when it is a pipe or socket.
pub fn stdin() -> Box<dyn AsyncRead + Send + Unpin> {
    match NonBlockingPipe::new(std::os::fd::AsFd::as_fd(&io::stdin()), Interest::READABLE) {
        Some(pipe) => Box::new(pipe),
        None => Box::new(tokio::io::stdin()),
    }
}

/// The server's stdout: tokio's, written on the blocking pool (see the module documentation).
pub fn stdout() -> tokio::io::Stdout {
    tokio::io::stdout()
}

/// A duplicate of a pipe or socket descriptor in non-blocking mode, registered with the
/// reactor.
struct NonBlockingPipe {
    file: AsyncFd<File>,
    /// The file-status flags before the switch, restored on drop.
    original_flags: libc::c_int,
}

impl NonBlockingPipe {
    /// `None` when `fd` is not a pipe or socket, or cannot be switched or registered. Must be
    /// called inside the runtime.
    fn new(fd: BorrowedFd<'_>, interest: Interest) -> Option<Self> {
        use std::os::unix::fs::FileTypeExt;
        let file = File::from(fd.try_clone_to_owned().ok()?);
        let kind = file.metadata().ok()?.file_type();
        if !(kind.is_fifo() || kind.is_socket()) {
            return None;
        }
        let raw = file.as_raw_fd();
        // SAFETY: `raw` is a valid descriptor owned by `file` for the duration of the calls.
        let original_flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
        if original_flags < 0 {
            return None;
        }
        // SAFETY: as above; O_NONBLOCK only changes how reads and writes wait.
        if unsafe { libc::fcntl(raw, libc::F_SETFL, original_flags | libc::O_NONBLOCK) } < 0 {
            return None;
        }
        // SAFETY: the `File` owns the descriptor, so it stays open and refers to the same file
        // description for as long as the `AsyncFd` holds it.
        match unsafe { AsyncFd::register_with_interest(file, interest) } {
            Ok(file) => Some(Self {
                file,
                original_flags,
            }),
            Err(error) => {
                let (file, error) = error.into_parts();
                // SAFETY: `file` still owns the descriptor.
                unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, original_flags) };
                tracing::debug!(%error, "stdio pipe not pollable; using blocking stdio");
                None
            }
        }
    }
}

impl Drop for NonBlockingPipe {
    fn drop(&mut self) {
        // SAFETY: the descriptor is still open (the `AsyncFd` owns it until after this).
        unsafe {
            libc::fcntl(
                self.file.get_ref().as_raw_fd(),
                libc::F_SETFL,
                self.original_flags,
            );
        }
    }
}

impl AsyncRead for NonBlockingPipe {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.file.poll_read_ready(context))?;
            let unfilled = buf.initialize_unfilled();
            match guard.try_io(|file| file.get_ref().read(unfilled)) {
                Ok(Ok(read)) => {
                    buf.advance(read);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(error)) if error.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(error)) => return Poll::Ready(Err(error)),
                Err(_would_block) => continue,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn a_pipe_is_read_through_the_reactor_and_its_flags_restored() {
        let (reader, writer) = std::io::pipe().expect("pipe");
        let reader_fd: OwnedFd = reader.into();
        // SAFETY: a valid descriptor owned by this test.
        let before = unsafe { libc::fcntl(reader_fd.as_raw_fd(), libc::F_GETFL) };
        let mut input =
            NonBlockingPipe::new(reader_fd.as_fd(), Interest::READABLE).expect("pipe is pollable");
        // More than a pipe buffer holds: the reader must wait for the writer, not fail.
        let payload = vec![b'x'; 1 << 20];
        let expected = payload.len();
        let write = std::thread::spawn(move || {
            let mut output = File::from(OwnedFd::from(writer));
            output.write_all(&payload).expect("write");
        });
        let mut received = vec![0u8; expected];
        input.read_exact(&mut received).await.expect("read");
        write.join().expect("writer thread");
        assert!(received.iter().all(|byte| *byte == b'x'));
        drop(input);
        // SAFETY: as above.
        let after = unsafe { libc::fcntl(reader_fd.as_raw_fd(), libc::F_GETFL) };
        assert_eq!(after, before, "the original flags are restored on drop");
    }

    #[test]
    fn a_regular_file_keeps_blocking_stdio() {
        let file = tempfile::tempfile().expect("file");
        assert!(NonBlockingPipe::new(file.as_fd(), Interest::READABLE).is_none());
    }
}
