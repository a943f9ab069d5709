//! The transport of a stdio server: JSON-RPC messages as lines on the child's stdin and
//! stdout, each incoming line capped at [`MAX_MESSAGE_BYTES`].
//!
//! The SDK's own child-process transport drops a line over its cap and reads on, so the call
//! that line answered waits for its `tool_timeout_sec`. This transport answers that call at
//! once with an error instead: the request id is taken from the line's first bytes (kept when
//! the line crosses the cap, so the answer goes out before the rest is read), else from its
//! last bytes (see [`crate::oversized`]); when neither shows it, every call still waiting
//! on the server fails, since one of them will never be answered. The rest of the line is read
//! and discarded without being kept, and the connection goes on.
//!
//! A line that is not a message is skipped, as the SDK does; an answer that does not decode
//! fails its call with the decoding error, and a request of the server that does not decode is
//! answered `-32600`.

#[cfg(test)]
mod tests;

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use process_wrap::tokio::ChildWrapper;
use rmcp::RoleClient;
use rmcp::model::JsonRpcMessage;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

use crate::oversized::{id_from_tail, scan_head};
use crate::server::lock;

/// The largest message a stdio server may send, in bytes (its line without the newline).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The `data.tandem` of the error that answers a call whose answer was over the cap.
pub const TOO_LARGE_MARKER: &str = "messageTooLarge";

/// Bytes kept from the start of an over-long line.
const HEAD_BYTES: usize = 4096;
/// Bytes kept from the end of an over-long line.
const TAIL_BYTES: usize = 512;
/// How long a closed server may take to exit before it is killed.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
/// The line buffer keeps at most this much capacity between messages.
const RETAINED_LINE_CAPACITY: usize = 1024 * 1024;

/// A live stdio connection: the child and its pipes.
pub struct StdioTransport {
    /// Holds the child so that dropping the transport kills it.
    child: Box<dyn ChildWrapper>,
    reader: BufReader<ChildStdout>,
    writer: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    /// The line being read.
    line: Vec<u8>,
    /// The line being discarded, once it crossed the cap.
    oversized: Option<Oversized>,
    /// Our requests not answered yet, by the JSON text of their ids.
    pending: Arc<Mutex<HashSet<String>>>,
    /// Answers made up here, delivered before the next line is read.
    ready: VecDeque<RxJsonRpcMessage<RoleClient>>,
    limit: usize,
}

struct Oversized {
    length: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
    /// Whether the call it answers was already failed (its id was in the head).
    answered: bool,
    /// Whether its head was looked at.
    scanned: bool,
    /// Whether its head says it is a request or notification of the server.
    from_server: bool,
}

/// What a complete line holds.
enum Decoded {
    Message(Box<RxJsonRpcMessage<RoleClient>>),
    /// An answer (it has an id and no method) that is not a valid message.
    UndecodableAnswer {
        id: String,
        error: serde_json::Error,
    },
    /// A request of the server that is not a valid message.
    UndecodableRequest(Value),
    /// Not JSON, a blank line, or a notification the SDK does not know.
    Nothing,
}

enum Read {
    Line,
    OversizedStarted,
    OversizedEnded,
    Eof,
}

impl StdioTransport {
    /// Takes over `child`, whose stdin and stdout must be pipes.
    pub fn new(mut child: Box<dyn ChildWrapper>) -> std::io::Result<Self> {
        let stdin = child.stdin().take();
        let stdout = child.stdout().take();
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            return Err(std::io::Error::other(
                "the server's stdin and stdout are not pipes",
            ));
        };
        Ok(StdioTransport {
            child,
            reader: BufReader::with_capacity(64 * 1024, stdout),
            writer: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            line: Vec::new(),
            oversized: None,
            pending: Arc::new(Mutex::new(HashSet::new())),
            ready: VecDeque::new(),
            limit: MAX_MESSAGE_BYTES,
        })
    }

    /// Reads up to the end of a line, or to the moment a line crosses the cap, or to its end.
    ///
    /// Cancel-safe: everything read is kept on `self` before the next await, so a dropped
    /// call resumes where it was.
    async fn read_line(&mut self) -> std::io::Result<Read> {
        loop {
            let (consumed, read) = {
                let available = self.reader.fill_buf().await?;
                if available.is_empty() {
                    return Ok(Read::Eof);
                }
                let newline = available.iter().position(|byte| *byte == b'\n');
                let consumed = newline.map_or(available.len(), |index| index + 1);
                let content = &available[..newline.unwrap_or(available.len())];
                let read = match &mut self.oversized {
                    Some(oversized) => {
                        oversized.push(content);
                        newline.map(|_| Read::OversizedEnded)
                    }
                    None if self.line.len() + content.len() > self.limit => {
                        let mut oversized = Oversized {
                            length: 0,
                            head: Vec::new(),
                            tail: Vec::new(),
                            answered: false,
                            scanned: false,
                            from_server: false,
                        };
                        oversized.push(&self.line);
                        oversized.push(content);
                        self.oversized = Some(oversized);
                        self.line = Vec::new();
                        Some(match newline {
                            Some(_) => Read::OversizedEnded,
                            None => Read::OversizedStarted,
                        })
                    }
                    None => {
                        self.line.extend_from_slice(content);
                        newline.map(|_| Read::Line)
                    }
                };
                (consumed, read)
            };
            self.reader.consume(consumed);
            if let Some(read) = read {
                return Ok(read);
            }
        }
    }

    /// The message of the complete line in `self.line`, if it is one.
    async fn decode_line(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let decoded = decode(&self.line);
        self.line.clear();
        if self.line.capacity() > RETAINED_LINE_CAPACITY {
            self.line = Vec::new();
        }
        match decoded {
            Decoded::Message(message) => {
                let answered = match message.as_ref() {
                    JsonRpcMessage::Response(response) => Some(id_key(&response.id)),
                    JsonRpcMessage::Error(error) => error.id.as_ref().map(id_key),
                    _ => None,
                };
                if let Some(id) = answered {
                    lock(&self.pending).remove(&id);
                }
                Some(*message)
            }
            Decoded::UndecodableAnswer { id, error } => {
                let message = format!("the MCP server's answer does not decode: {error}");
                self.fail(&id, message, json!({}))
            }
            Decoded::UndecodableRequest(id) => {
                self.reply_invalid_request(&id).await;
                None
            }
            Decoded::Nothing => None,
        }
    }

    /// A line crossed the cap: when its head names the call it answers, fail that call now.
    fn oversized_started(&mut self) {
        let Some(oversized) = self.oversized.as_mut() else {
            return;
        };
        let head = scan_head(&oversized.head);
        oversized.scanned = true;
        oversized.from_server = head.method;
        let Some(id) = head.id.filter(|_| !head.method) else {
            return;
        };
        if lock(&self.pending).contains(&id) {
            oversized.answered = true;
            if let Some(message) = self.too_large(&id, None) {
                self.ready.push_back(message);
            }
        }
    }

    /// An over-long line ended: fail the call it answered, unless that is done already.
    fn oversized_ended(&mut self) {
        if self
            .oversized
            .as_ref()
            .is_some_and(|oversized| !oversized.scanned)
        {
            // The line crossed the cap and ended within one read.
            self.oversized_started();
        }
        let Some(oversized) = self.oversized.take() else {
            return;
        };
        if oversized.answered {
            return;
        }
        if oversized.from_server {
            tracing::warn!(
                bytes = oversized.length,
                "an MCP server sent a request or notification over the message cap; it was dropped"
            );
            return;
        }
        let pending: Vec<String> = lock(&self.pending).iter().cloned().collect();
        let ids = match id_from_tail(oversized.tail()) {
            Some(id) if pending.contains(&id) => vec![id],
            // One of the waiting calls lost its answer; which one is unknown.
            _ => pending,
        };
        for id in ids {
            if let Some(message) = self.too_large(&id, Some(oversized.length)) {
                self.ready.push_back(message);
            }
        }
    }

    fn too_large(&self, id: &str, length: Option<usize>) -> Option<RxJsonRpcMessage<RoleClient>> {
        let limit = self.limit;
        let size = match length {
            Some(length) => format!("{length} bytes"),
            None => format!("more than {limit} bytes"),
        };
        let message = format!(
            "the server's answer ({size}) is over the {limit}-byte limit of a message; it was discarded unread"
        );
        self.fail(
            id,
            message,
            json!({"tandem": TOO_LARGE_MARKER, "bytes": length, "limit": limit}),
        )
    }

    /// An error answer to our request `id` (its JSON text), removing it from the pending set.
    fn fail(&self, id: &str, message: String, data: Value) -> Option<RxJsonRpcMessage<RoleClient>> {
        lock(&self.pending).remove(id);
        let id: Value = serde_json::from_str(id).ok()?;
        let error = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": -32603, "message": message, "data": data},
        });
        serde_json::from_value(error).ok()
    }

    async fn reply_invalid_request(&self, id: &Value) {
        let reply = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": -32600, "message": "Invalid request"},
        });
        let mut line = reply.to_string().into_bytes();
        line.push(b'\n');
        let _ = write_line(&self.writer, &line).await;
    }
}

impl Oversized {
    fn push(&mut self, bytes: &[u8]) {
        self.length += bytes.len();
        let room = HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        if bytes.len() >= TAIL_BYTES {
            self.tail.clear();
            self.tail
                .extend_from_slice(&bytes[bytes.len() - TAIL_BYTES..]);
        } else {
            self.tail.extend_from_slice(bytes);
            if self.tail.len() > TAIL_BYTES {
                self.tail.drain(..self.tail.len() - TAIL_BYTES);
            }
        }
    }

    fn tail(&self) -> &[u8] {
        self.tail.strip_suffix(b"\r").unwrap_or(&self.tail)
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let encoded = serde_json::to_value(&item).map(|value| {
            let method = value.get("method").and_then(Value::as_str);
            let mut pending = lock(&self.pending);
            match (value.get("id"), method) {
                (Some(id), Some(_)) => {
                    pending.insert(id.to_string());
                }
                // A cancelled call may never be answered.
                (None, Some("notifications/cancelled")) => {
                    if let Some(id) = value.pointer("/params/requestId") {
                        pending.remove(&id.to_string());
                    }
                }
                _ => {}
            }
            let mut line = value.to_string().into_bytes();
            line.push(b'\n');
            line
        });
        let writer = self.writer.clone();
        async move {
            match encoded {
                Ok(line) => write_line(&writer, &line).await,
                Err(error) => Err(std::io::Error::other(error)),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Some(message);
            }
            match self.read_line().await {
                Ok(Read::Line) => {
                    if let Some(message) = self.decode_line().await {
                        return Some(message);
                    }
                }
                Ok(Read::OversizedStarted) => self.oversized_started(),
                Ok(Read::OversizedEnded) => self.oversized_ended(),
                Ok(Read::Eof) => return None,
                Err(error) => {
                    tracing::warn!("reading from an MCP server failed: {error}");
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // End of input asks the server to exit; one that does not is killed (its owner also
        // kills the whole process group).
        self.writer.lock().await.take();
        match tokio::time::timeout(CLOSE_WAIT, self.child.wait()).await {
            Ok(exited) => exited.map(|_| ()),
            Err(_) => self.child.start_kill(),
        }
    }
}

async fn write_line(
    writer: &tokio::sync::Mutex<Option<ChildStdin>>,
    line: &[u8],
) -> std::io::Result<()> {
    let mut writer = writer.lock().await;
    let Some(stdin) = writer.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the connection is closed",
        ));
    };
    stdin.write_all(line).await?;
    stdin.flush().await
}

fn decode(line: &[u8]) -> Decoded {
    let text = line.strip_suffix(b"\r").unwrap_or(line);
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Decoded::Nothing;
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(text) {
        Ok(message) => Decoded::Message(Box::new(message)),
        Err(error) => {
            let Ok(value) = serde_json::from_slice::<Value>(text) else {
                tracing::debug!("ignoring a line that is not JSON from an MCP server");
                return Decoded::Nothing;
            };
            let id = value.get("id").filter(|id| !id.is_null()).cloned();
            match (id, value.get("method")) {
                (Some(id), Some(_)) => Decoded::UndecodableRequest(id),
                (Some(id), None) => Decoded::UndecodableAnswer {
                    id: id.to_string(),
                    error,
                },
                // Notifications the SDK does not know are ignored, as the SDK does.
                (None, _) => Decoded::Nothing,
            }
        }
    }
}

/// The JSON text of a request id, as the pending set holds it.
fn id_key(id: &rmcp::model::RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}
