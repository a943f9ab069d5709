//! stdio JSONL transport: one reader task and one writer task with bounded queues.
//!
//! The reader splits stdin into lines with a length cap. An over-long line is never buffered
//! whole: once it passes the cap only its first [`OVERLONG_PREFIX_BYTES`] are kept while the
//! rest is discarded up to the next newline, and the caller is told the request id found in
//! that prefix, so that it can answer the request instead of leaving the client waiting.
//! Reading then continues with the next line. The writer batches whatever is queued and
//! flushes once per batch, so a burst of notifications costs one syscall.

use std::io;

use app_server_protocol::jsonrpc::RequestId;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::bytes::{Buf, BytesMut};

use crate::transport::request_id_in_prefix;

/// How much of an over-long line is kept to find its request id (clients put `id` before
/// `params`, which is what makes a line long).
pub const OVERLONG_PREFIX_BYTES: usize = 4096;

/// Reads lines from `input` until EOF, handing each complete line to `on_line`.
///
/// A line longer than `max_line_bytes` (not counting its line end) is discarded up to the
/// next newline and reported to `on_overlong` with the id recovered from its start, if any.
/// A line that is not UTF-8 is logged and skipped. Returns at EOF or on a read error.
pub async fn read_lines<R, F, G>(
    mut input: R,
    max_line_bytes: usize,
    mut on_line: F,
    mut on_overlong: G,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    F: AsyncFnMut(String),
    G: AsyncFnMut(Option<RequestId>),
{
    let mut buffer = BytesMut::with_capacity(64 * 1024);
    // `buffer[..scanned]` holds no newline, so a long line is searched once.
    let mut scanned = 0;
    // The kept start of the over-long line being discarded, if any.
    let mut discarding: Option<Vec<u8>> = None;
    loop {
        loop {
            let newline = memchr::memchr(b'\n', &buffer[scanned..]).map(|offset| scanned + offset);
            if let Some(prefix) = &mut discarding {
                let end = newline.unwrap_or(buffer.len());
                keep_prefix(prefix, &buffer[..end]);
                scanned = 0;
                let Some(end) = newline else {
                    buffer.clear();
                    break;
                };
                buffer.advance(end + 1);
                let id = request_id_in_prefix(prefix);
                discarding = None;
                warn_overlong(max_line_bytes, id.as_ref());
                on_overlong(id).await;
                continue;
            }
            match newline {
                Some(end) if end > max_line_bytes => {
                    let mut prefix = Vec::new();
                    keep_prefix(&mut prefix, &buffer[..end]);
                    buffer.advance(end + 1);
                    scanned = 0;
                    let id = request_id_in_prefix(&prefix);
                    warn_overlong(max_line_bytes, id.as_ref());
                    on_overlong(id).await;
                }
                Some(end) => {
                    let line = buffer.split_to(end + 1);
                    scanned = 0;
                    if let Some(line) = line_text(&line[..end]) {
                        on_line(line).await;
                    }
                }
                None if buffer.len() > max_line_bytes => {
                    let mut prefix = Vec::new();
                    keep_prefix(&mut prefix, &buffer);
                    discarding = Some(prefix);
                    buffer.clear();
                    scanned = 0;
                    break;
                }
                None => {
                    scanned = buffer.len();
                    break;
                }
            }
        }
        let read = input.read_buf(&mut buffer).await?;
        if read == 0 {
            // EOF: a last line without a trailing newline still counts.
            if let Some(prefix) = discarding {
                let id = request_id_in_prefix(&prefix);
                warn_overlong(max_line_bytes, id.as_ref());
                on_overlong(id).await;
            } else if buffer.len() > max_line_bytes {
                let id = request_id_in_prefix(&buffer[..buffer.len().min(OVERLONG_PREFIX_BYTES)]);
                warn_overlong(max_line_bytes, id.as_ref());
                on_overlong(id).await;
            } else if !buffer.is_empty()
                && let Some(line) = line_text(&buffer)
            {
                on_line(line).await;
            }
            return Ok(());
        }
    }
}

/// Appends to `prefix` the bytes of `part` that fit in [`OVERLONG_PREFIX_BYTES`].
fn keep_prefix(prefix: &mut Vec<u8>, part: &[u8]) {
    let room = OVERLONG_PREFIX_BYTES.saturating_sub(prefix.len());
    prefix.extend_from_slice(&part[..part.len().min(room)]);
}

/// A line without its `\r`, or `None` (logged) when it is not UTF-8.
fn line_text(line: &[u8]) -> Option<String> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match std::str::from_utf8(line) {
        Ok(text) => Some(text.to_string()),
        Err(error) => {
            tracing::warn!(%error, "input line is not UTF-8; skipping it");
            None
        }
    }
}

fn warn_overlong(max_line_bytes: usize, id: Option<&RequestId>) {
    tracing::warn!(
        max_line_bytes,
        id = ?id,
        "input line longer than the cap; discarded it and continuing with the next line"
    );
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

    /// Every line and every over-long line's recovered id, reading `input` in `chunk`-byte
    /// reads.
    async fn read_all(
        input: &[u8],
        max_line_bytes: usize,
        chunk: usize,
    ) -> (Vec<String>, Vec<Option<RequestId>>) {
        let mut lines = Vec::new();
        let mut overlong = Vec::new();
        let reader = ChunkedReader {
            data: input.to_vec(),
            position: 0,
            chunk,
        };
        read_lines(
            reader,
            max_line_bytes,
            async |line| lines.push(line),
            async |id| overlong.push(id),
        )
        .await
        .expect("read");
        (lines, overlong)
    }

    /// A reader that returns at most `chunk` bytes per read, like a pipe.
    struct ChunkedReader {
        data: Vec<u8>,
        position: usize,
        chunk: usize,
    }

    impl AsyncRead for ChunkedReader {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            let length = self.chunk.min(buf.remaining());
            let end = self.position.saturating_add(length).min(self.data.len());
            buf.put_slice(&self.data[self.position..end]);
            self.position = end;
            std::task::Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn overlong_lines_are_reported_with_their_id_and_reading_continues() {
        let long = format!(
            "{{\"id\":7,\"method\":\"thread/list\",\"params\":{{\"searchTerm\":\"{}\"}}}}",
            "x".repeat(100_000)
        );
        let input = format!(
            "{long}\n{{\"ok\":1}}\r\n{{\"id\":\"a\",\"p\":\"{}\"}}\n{}\nlast",
            "y".repeat(100),
            "z".repeat(100)
        );
        for chunk in [1, 7, 64, 4096, usize::MAX] {
            let (lines, overlong) = read_all(input.as_bytes(), 50, chunk).await;
            assert_eq!(lines, vec!["{\"ok\":1}".to_string(), "last".to_string()]);
            assert_eq!(
                overlong,
                vec![
                    Some(RequestId::Integer(7)),
                    Some(RequestId::String("a".into())),
                    None
                ],
                "reads of {chunk} bytes"
            );
        }
    }

    #[tokio::test]
    async fn an_overlong_last_line_without_newline_is_reported() {
        let input = format!("{{\"id\":3,\"x\":\"{}\"}}", "x".repeat(10_000));
        for chunk in [64, usize::MAX] {
            let (lines, overlong) = read_all(input.as_bytes(), 50, chunk).await;
            assert_eq!(lines, Vec::<String>::new());
            assert_eq!(overlong, vec![Some(RequestId::Integer(3))]);
        }
    }

    #[tokio::test]
    async fn lines_of_exactly_the_cap_pass() {
        let line = "x".repeat(50);
        let input = format!("{line}\n{line}");
        let (lines, overlong) = read_all(input.as_bytes(), 50, 16).await;
        assert_eq!(lines, vec![line.clone(), line]);
        assert_eq!(overlong, Vec::new());
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
