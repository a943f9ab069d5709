//! stdio JSONL transport: one reader task and one writer thread with bounded queues.
//!
//! The reader splits stdin into lines with a length cap; an over-long line is discarded with a
//! logged reason and reading continues with the next line. The writer batches whatever is
//! queued and flushes once per batch, so a burst of notifications costs one syscall.

use std::io::{self, Write};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{mpsc, oneshot};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};

/// Reads lines from `input` until EOF, handing each complete line to `on_line`.
///
/// Lines longer than `max_line_bytes` are skipped (the rest of such a line is discarded up to
/// the next newline). Returns at EOF or on a read error.
pub async fn read_lines<R, F>(mut input: R, max_line_bytes: usize, mut on_line: F) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    F: AsyncFnMut(String),
{
    let mut codec = LinesCodec::new_with_max_length(max_line_bytes);
    let mut buffer = BytesMut::with_capacity(64 * 1024);
    loop {
        loop {
            match codec.decode(&mut buffer) {
                Ok(Some(line)) => on_line(line).await,
                Ok(None) => break,
                Err(LinesCodecError::MaxLineLengthExceeded) => {
                    tracing::warn!(
                        max_line_bytes,
                        "input line longer than the cap; discarding it and continuing with the next line"
                    );
                }
                Err(LinesCodecError::Io(error)) => {
                    tracing::warn!(%error, "undecodable input line; skipping it");
                }
            }
        }
        let read = input.read_buf(&mut buffer).await?;
        if read == 0 {
            // EOF: a last line without a trailing newline still counts.
            match codec.decode_eof(&mut buffer) {
                Ok(Some(line)) => on_line(line).await,
                Ok(None) => {}
                Err(error) => tracing::warn!(%error, "undecodable last input line"),
            }
            return Ok(());
        }
    }
}

/// Largest batch the writer gathers before it writes.
const MAX_BATCH_BYTES: usize = 1 << 20;

/// The writer thread's outcome: `Err` when the output failed (the client closed its end).
pub type WriterDone = oneshot::Receiver<io::Result<()>>;

/// Starts the thread that writes queued lines to `output` until every sender is dropped.
///
/// A dedicated thread owns the output and blocks in `write`, so a streaming turn costs one
/// wake-up per batch rather than a task wake-up plus a blocking-pool handoff; while a write is
/// in flight, the producers keep queueing and the next batch is larger. The queue is bounded:
/// a client that stops reading stalls the producers, not memory. The thread is detached, so a
/// client that never reads cannot hold the process open; resolve the returned receiver (with a
/// bound) to wait for the queued lines to be written.
pub fn start_writer<W>(output: W, lines: mpsc::Receiver<String>) -> io::Result<WriterDone>
where
    W: Write + Send + 'static,
{
    let (done, finished) = oneshot::channel();
    std::thread::Builder::new()
        .name("tandem-stdout".to_string())
        .spawn(move || {
            let mut output = output;
            let mut lines = lines;
            let _ = done.send(write_lines(&mut output, &mut lines));
        })?;
    Ok(finished)
}

/// Writes queued lines to `output`, one write and flush per batch of whatever is queued, until
/// every sender is dropped. Blocks: run it on a thread of its own ([`start_writer`]).
pub fn write_lines<W: Write>(output: &mut W, lines: &mut mpsc::Receiver<String>) -> io::Result<()> {
    let mut batch: Vec<u8> = Vec::with_capacity(64 * 1024);
    while let Some(line) = lines.blocking_recv() {
        batch.extend_from_slice(line.as_bytes());
        batch.push(b'\n');
        // Drain what is already queued so that a burst becomes one write.
        while batch.len() < MAX_BATCH_BYTES {
            match lines.try_recv() {
                Ok(line) => {
                    batch.extend_from_slice(line.as_bytes());
                    batch.push(b'\n');
                }
                Err(_) => break,
            }
        }
        output.write_all(&batch)?;
        output.flush()?;
        batch.clear();
    }
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn overlong_lines_are_skipped_and_reading_continues() {
        let input = format!("{}\n{{\"ok\":1}}\nlast", "x".repeat(100));
        let mut lines = Vec::new();
        read_lines(input.as_bytes(), 50, async |line| lines.push(line))
            .await
            .expect("read");
        assert_eq!(lines, vec!["{\"ok\":1}".to_string(), "last".to_string()]);
    }

    #[test]
    fn writer_emits_one_line_per_message() {
        let (sender, mut receiver) = mpsc::channel(8);
        let mut output = Vec::new();
        sender.try_send("a".into()).expect("send");
        sender.try_send("b".into()).expect("send");
        drop(sender);
        write_lines(&mut output, &mut receiver).expect("write");
        assert_eq!(output, b"a\nb\n");
    }

    #[tokio::test]
    async fn the_writer_thread_writes_everything_queued_before_the_senders_close() {
        let (read_end, write_end) = std::io::pipe().expect("pipe");
        let (sender, receiver) = mpsc::channel(2);
        let done = start_writer(write_end, receiver).expect("writer thread");
        for index in 0..100 {
            sender.send(format!("line {index}")).await.expect("send");
        }
        drop(sender);
        done.await.expect("writer finished").expect("written");
        let mut written = String::new();
        std::io::Read::read_to_string(&mut &read_end, &mut written).expect("read");
        let expected: String = (0..100).map(|index| format!("line {index}\n")).collect();
        assert_eq!(written, expected);
    }
}
