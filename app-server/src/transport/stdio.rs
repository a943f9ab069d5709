//! stdio JSONL transport: one reader task and one writer task with bounded queues.
//!
//! The reader splits stdin into lines with a length cap; an over-long line is discarded with a
//! logged reason and reading continues with the next line. The writer batches whatever is
//! queued and flushes once per batch, so a burst of notifications costs one syscall.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
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

/// Writes queued lines to `output`, flushing after each batch, until every sender is dropped.
pub async fn write_lines<W>(mut output: W, mut lines: mpsc::Receiver<String>) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let mut batch: Vec<u8> = Vec::with_capacity(64 * 1024);
    while let Some(line) = lines.recv().await {
        batch.extend_from_slice(line.as_bytes());
        batch.push(b'\n');
        // Drain what is already queued so that a burst becomes one write.
        while batch.len() < 1 << 20 {
            match lines.try_recv() {
                Ok(line) => {
                    batch.extend_from_slice(line.as_bytes());
                    batch.push(b'\n');
                }
                Err(_) => break,
            }
        }
        output.write_all(&batch).await?;
        output.flush().await?;
        batch.clear();
    }
    output.flush().await
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

    #[tokio::test]
    async fn writer_emits_one_line_per_message() {
        let (sender, receiver) = mpsc::channel(8);
        let mut output = Vec::new();
        sender.send("a".into()).await.expect("send");
        sender.send("b".into()).await.expect("send");
        drop(sender);
        write_lines(&mut output, receiver).await.expect("write");
        assert_eq!(output, b"a\nb\n");
    }
}
