//! A tiny HTTP/1.1 server for the model client tests: scripted replies, real sockets,
//! SSE frames written one chunk at a time.
//!
//! The full mock model server lives in the `tandem-tests` crate, which this crate cannot
//! depend on; this one only needs what the parser tests need.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::config::{ProviderConfig, WireApi};

/// What the server answers to one request.
pub enum Reply {
    /// `200 text/event-stream`, the frames, then the end of the body.
    Sse(Vec<String>),
    /// `200 text/event-stream`, the frames, then the connection is closed mid-body.
    SseThenDrop(Vec<String>),
    /// `200 text/event-stream`, the frames, then silence with the connection open.
    SseThenStall(Vec<String>),
    /// A status with a body and extra headers.
    Status {
        status: u16,
        body: String,
        headers: Vec<(String, String)>,
    },
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: BTreeMap<String, String>,
    pub body: Value,
}

/// The running server; stops when dropped.
pub struct TestServer {
    pub base_url: String,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    task: JoinHandle<()>,
}

impl TestServer {
    /// Serves `replies` in order, one per connection.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let task = tokio::spawn({
            let requests = requests.clone();
            async move {
                loop {
                    let Ok((socket, _)) = listener.accept().await else {
                        return;
                    };
                    let requests = requests.clone();
                    let replies = replies.clone();
                    tokio::spawn(async move {
                        serve(socket, requests, replies).await;
                    });
                }
            }
        });
        Self {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            requests,
            task,
        }
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut socket: TcpStream,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    requests.lock().unwrap().push(request);
    let reply = replies
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or(Reply::Status {
            status: 500,
            body: r#"{"error":{"message":"no scripted reply left"}}"#.to_string(),
            headers: Vec::new(),
        });
    let (frames, ending) = match reply {
        Reply::Status {
            status,
            body,
            headers,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            head.push_str(&body);
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.shutdown().await;
            return;
        }
        Reply::Sse(frames) => (frames, Ending::Complete),
        Reply::SseThenDrop(frames) => (frames, Ending::Drop),
        Reply::SseThenStall(frames) => (frames, Ending::Stall),
    };
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for frame in frames {
        let chunk = format!("{:x}\r\n{frame}\r\n", frame.len());
        if socket.write_all(chunk.as_bytes()).await.is_err() {
            return;
        }
        let _ = socket.flush().await;
    }
    match ending {
        Ending::Complete => {
            let _ = socket.write_all(b"0\r\n\r\n").await;
            let _ = socket.shutdown().await;
        }
        Ending::Drop => drop(socket),
        Ending::Stall => {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
    }
}

enum Ending {
    Complete,
    Drop,
    Stall,
}

async fn read_request(socket: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break end;
        }
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let headers: BTreeMap<String, String> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_lowercase(), value.trim().to_string()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|length| length.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[header_end + 4..].to_vec();
    while body.len() < length {
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    Some(RecordedRequest {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

/// A Responses frame: `event: <type>` plus the JSON.
pub fn responses_frame(data: Value) -> String {
    let kind = data["type"].as_str().unwrap_or("message").to_string();
    format!("event: {kind}\ndata: {data}\n\n")
}

/// A Chat Completions frame: `data: <json>`.
pub fn chat_frame(data: Value) -> String {
    format!("data: {data}\n\n")
}

/// A provider pointing at `base_url`, with a short idle timeout.
pub fn provider(base_url: &str, wire_api: WireApi) -> ProviderConfig {
    ProviderConfig {
        id: "mock".to_string(),
        name: "Mock".to_string(),
        base_url: base_url.to_string(),
        wire_api,
        env_key: None,
        http_headers: BTreeMap::new(),
        request_max_retries: 0,
        stream_max_retries: 0,
        stream_idle_timeout_ms: 2_000,
        stream: true,
        models: vec!["configured-model".to_string()],
        default_model: "mock-model".to_string(),
    }
}
