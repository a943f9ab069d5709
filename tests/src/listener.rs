//! A `tandem app-server` listening on `ws://` or `unix://`, and a WebSocket client of it that
//! reads like [`crate::server::TestServer`]: every read has a timeout, and messages that
//! arrive while the client waits for something else are kept in order.

#![allow(
    clippy::expect_used,
    reason = "test support: a broken socket or a timeout must fail the test loudly"
)]

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{self, Message};

use crate::server::{READ_TIMEOUT, tandem_binary};

/// A byte stream a WebSocket runs on: TCP or a Unix socket.
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// A running `tandem app-server --listen …` with a private `TANDEM_HOME`.
pub struct Listener {
    /// The child process (killed on drop).
    pub child: Child,
    /// `TANDEM_HOME`.
    pub home: PathBuf,
    /// Where it listens, as it reported: `ws://IP:PORT` or `unix://PATH`.
    pub url: String,
    /// stderr lines after the listening line.
    pub stderr: mpsc::UnboundedReceiver<String>,
    _home_dir: Option<tempfile::TempDir>,
}

impl Listener {
    /// Spawns `tandem app-server --listen <listen> <args>` with `config_toml` in `home` (a
    /// fresh one when `None`) and waits until it reports where it listens.
    pub async fn spawn(
        config_toml: &str,
        listen: &str,
        args: &[&str],
        home: Option<PathBuf>,
    ) -> Listener {
        let filter = std::env::var("TANDEM_TEST_LOG").unwrap_or_else(|_| "warn".to_string());
        Self::spawn_logging(config_toml, listen, args, home, &filter).await
    }

    /// As [`Self::spawn`], with the server's `RUST_LOG` set to `filter`; its stderr lines
    /// arrive on [`Self::stderr`].
    pub async fn spawn_logging(
        config_toml: &str,
        listen: &str,
        args: &[&str],
        home: Option<PathBuf>,
        filter: &str,
    ) -> Listener {
        let (home, home_dir) = match home {
            Some(home) => (home, None),
            None => {
                let dir = tempfile::tempdir().expect("temp home");
                (dir.path().to_path_buf(), Some(dir))
            }
        };
        std::fs::write(home.join("config.toml"), config_toml).expect("write config");
        let mut child = Command::new(tandem_binary())
            .args(["app-server", "--listen", listen])
            .args(args)
            .env("TANDEM_HOME", &home)
            .env("RUST_LOG", filter)
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn tandem");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let (sender, mut stderr) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("[tandem] {line}");
                let _ = sender.send(line);
            }
        });
        let url = tokio::time::timeout(READ_TIMEOUT, async {
            loop {
                let line = stderr
                    .recv()
                    .await
                    .expect("the server ended before listening");
                if let Some(url) = line.strip_prefix("tandem app-server listening on ") {
                    return url.to_string();
                }
            }
        })
        .await
        .expect("the server did not report where it listens");
        Listener {
            child,
            home,
            url,
            stderr,
            _home_dir: home_dir,
        }
    }

    /// Waits for a stderr line containing `needle` and returns it.
    pub async fn stderr_line(&mut self, needle: &str) -> String {
        tokio::time::timeout(READ_TIMEOUT, async {
            loop {
                let line = self
                    .stderr
                    .recv()
                    .await
                    .expect("the server's stderr closed");
                if line.contains(needle) {
                    return line;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no stderr line with {needle:?}"))
    }

    /// The `IP:PORT` of a `ws://` listener.
    pub fn address(&self) -> &str {
        self.url.strip_prefix("ws://").expect("a ws:// listener")
    }

    /// The socket path of a `unix://` listener.
    pub fn socket_path(&self) -> PathBuf {
        PathBuf::from(
            self.url
                .strip_prefix("unix://")
                .expect("a unix:// listener"),
        )
    }

    /// Opens a WebSocket connection with these extra headers (`Authorization`, `Origin`).
    pub async fn connect(&self, headers: &[(&str, &str)]) -> Result<WsClient, Refused> {
        match self.url.strip_prefix("unix://") {
            Some(path) => {
                let stream = tokio::net::UnixStream::connect(path)
                    .await
                    .expect("connect to the socket");
                WsClient::handshake(Box::new(stream), "ws://localhost/", headers).await
            }
            None => {
                let stream = tokio::net::TcpStream::connect(self.address())
                    .await
                    .expect("connect to the listener");
                let url = format!("{}/", self.url);
                WsClient::handshake(Box::new(stream), &url, headers).await
            }
        }
    }

    /// Sends SIGTERM and waits for the process to end; returns its exit code.
    pub async fn terminate(mut self) -> Option<i32> {
        if let Some(pid) = self.child.id() {
            // SAFETY: kill with a pid of our own child and a valid signal.
            unsafe { libc::kill(pid as i32, libc::SIGTERM) };
        }
        let status = tokio::time::timeout(READ_TIMEOUT, self.child.wait())
            .await
            .expect("the server did not stop")
            .expect("wait");
        status.code()
    }
}

/// An upgrade the listener refused: its HTTP status and body.
#[derive(Debug)]
pub struct Refused {
    /// The HTTP status.
    pub status: u16,
    /// The response body.
    pub body: String,
}

/// One WebSocket connection to a listener.
pub struct WsClient {
    socket: WebSocketStream<Box<dyn Io>>,
    backlog: VecDeque<Value>,
    next_id: i64,
}

impl WsClient {
    /// Runs the WebSocket handshake on `stream` for `url` with extra `headers`.
    pub async fn handshake(
        stream: Box<dyn Io>,
        url: &str,
        headers: &[(&str, &str)],
    ) -> Result<WsClient, Refused> {
        let mut request = url.into_client_request().expect("a WebSocket URL");
        for (name, value) in headers {
            request.headers_mut().insert(
                tungstenite::http::HeaderName::from_bytes(name.as_bytes()).expect("header name"),
                tungstenite::http::HeaderValue::from_str(value).expect("header value"),
            );
        }
        match tokio_tungstenite::client_async(request, stream).await {
            Ok((socket, _)) => Ok(WsClient {
                socket,
                backlog: VecDeque::new(),
                next_id: 1,
            }),
            Err(tungstenite::Error::Http(response)) => Err(Refused {
                status: response.status().as_u16(),
                body: response
                    .body()
                    .as_ref()
                    .map(|body| String::from_utf8_lossy(body).into_owned())
                    .unwrap_or_default(),
            }),
            Err(error) => panic!("WebSocket handshake failed: {error}"),
        }
    }

    /// Sends one message as a text frame.
    pub async fn send(&mut self, message: &Value) {
        self.socket
            .send(Message::text(message.to_string()))
            .await
            .expect("send a frame");
    }

    /// Sends a request and returns its id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a request and waits for its response.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// Waits for the response to `id`.
    pub async fn response(&mut self, id: i64) -> Result<Value, Value> {
        let message = self
            .take_matching(|message| {
                message.get("id") == Some(&json!(id)) && message.get("method").is_none()
            })
            .await;
        match message.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(message["result"].clone()),
        }
    }

    /// `initialize` with the experimental API, then `initialized`.
    pub async fn initialize(&mut self) -> Value {
        let result = self
            .request(
                "initialize",
                json!({"clientInfo": {"name": "ws-test", "version": "1"},
                       "capabilities": {"experimentalApi": true}}),
            )
            .await
            .expect("initialize");
        self.send(&json!({"method": "initialized"})).await;
        result
    }

    /// Waits for the next notification with `method` and returns its params.
    pub async fn notification(&mut self, method: &str) -> Value {
        let message = self
            .take_matching(|message| {
                message.get("method") == Some(&json!(method)) && message.get("id").is_none()
            })
            .await;
        message.get("params").cloned().unwrap_or(Value::Null)
    }

    /// Waits for the next server request (a message with `method` and `id`).
    pub async fn server_request(&mut self) -> Value {
        self.take_matching(|message| message.get("method").is_some() && message.get("id").is_some())
            .await
    }

    /// Answers server request `id` with `result`.
    pub async fn answer(&mut self, id: &Value, result: Value) {
        self.send(&json!({"id": id, "result": result})).await;
    }

    /// Reads messages until `turn/completed` and returns them all, backlog first.
    pub async fn until_turn_completed(&mut self) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.next_message().await;
            let done = message.get("method") == Some(&json!("turn/completed"));
            seen.push(message);
            if done {
                return seen;
            }
        }
    }

    /// The next message, from the backlog or the socket.
    pub async fn next_message(&mut self) -> Value {
        if let Some(message) = self.backlog.pop_front() {
            return message;
        }
        self.read_message().await
    }

    /// Removes and returns the first message matching `predicate`; earlier ones stay in the
    /// backlog.
    pub async fn take_matching(&mut self, predicate: impl Fn(&Value) -> bool) -> Value {
        if let Some(position) = self.backlog.iter().position(&predicate) {
            return self.backlog.remove(position).expect("backlog entry");
        }
        loop {
            let message = self.read_message().await;
            if predicate(&message) {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// Waits for the server to close the connection; returns the close frame's code and
    /// reason (1005 and an empty reason when it sent none).
    pub async fn close_frame(&mut self) -> (u16, String) {
        loop {
            let frame = tokio::time::timeout(READ_TIMEOUT, self.socket.next())
                .await
                .expect("timed out waiting for the connection to close");
            match frame {
                Some(Ok(Message::Close(Some(close)))) => {
                    return (u16::from(close.code), close.reason.as_str().to_string());
                }
                Some(Ok(Message::Close(None))) | None => return (1005, String::new()),
                Some(Ok(Message::Text(text))) => panic!("a message before the close: {text}"),
                Some(Ok(_)) => {}
                Some(Err(error)) => panic!("the connection failed instead of closing: {error}"),
            }
        }
    }

    /// Closes the connection with a close frame.
    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }

    async fn read_message(&mut self) -> Value {
        loop {
            let frame = tokio::time::timeout(READ_TIMEOUT, self.socket.next())
                .await
                .expect("timed out waiting for a frame")
                .expect("the connection closed")
                .expect("a WebSocket frame");
            match frame {
                Message::Text(text) => {
                    return serde_json::from_str(text.as_str()).expect("a JSON message");
                }
                Message::Ping(_) | Message::Pong(_) => {}
                other => panic!("unexpected frame: {other:?}"),
            }
        }
    }
}
