//! Test clients for `tandem mcp-server`: a raw JSON-RPC client over the child's stdio that
//! records every message, and an HTTP harness (the server on a free port of 127.0.0.1, a
//! reqwest client, an incremental SSE reader).

#![allow(
    clippy::expect_used,
    reason = "test support: a broken pipe or a timeout must fail the test loudly"
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::server::{READ_TIMEOUT, tandem_binary};

/// A `tandem mcp-server` child of `binary` with a private `TANDEM_HOME`.
fn command(binary: &Path, home: &Path, args: &[&str], rust_log: &str) -> Command {
    let mut command = Command::new(binary);
    command
        .arg("mcp-server")
        .args(args)
        // The auto-warm refresh indexes the working directory: keep it inside the test's home.
        .current_dir(home)
        .env("TANDEM_HOME", home)
        .env("RUST_LOG", rust_log)
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// A fresh home with `config_toml`.
pub fn home_with(config_toml: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp home");
    std::fs::write(home.path().join("config.toml"), config_toml).expect("write config");
    home
}

/// `tandem mcp-server` over stdio, speaking raw JSON-RPC.
pub struct McpStdio {
    /// The child (killed on drop).
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    /// Every message received, in order.
    pub log: Vec<Value>,
    backlog: std::collections::VecDeque<Value>,
    /// `TANDEM_HOME`.
    pub home: tempfile::TempDir,
}

impl McpStdio {
    /// Spawns the server with `config_toml` and extra arguments.
    pub async fn spawn(config_toml: &str, args: &[&str]) -> McpStdio {
        Self::spawn_binary(&tandem_binary(), config_toml, args, "info").await
    }

    /// Spawns `binary mcp-server` with `config_toml`, extra arguments and `RUST_LOG`.
    pub async fn spawn_binary(
        binary: &Path,
        config_toml: &str,
        args: &[&str],
        rust_log: &str,
    ) -> McpStdio {
        let home = home_with(config_toml);
        let mut child = command(binary, home.path(), args, rust_log)
            .spawn()
            .expect("spawn tandem");
        forward_stderr(&mut child, "mcp-stdio");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        McpStdio {
            child,
            stdin,
            stdout,
            log: Vec::new(),
            backlog: Default::default(),
            home,
        }
    }

    /// Writes one message.
    pub async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await;
    }

    /// Writes one raw line.
    pub async fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).await.expect("write");
        stdin.write_all(b"\n").await.expect("write");
        stdin.flush().await.expect("flush");
    }

    /// Closes stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    async fn read(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(READ_TIMEOUT, self.stdout.next_line())
            .await
            .expect("timed out waiting for the server")
            .expect("read stdout")?;
        let value: Value = serde_json::from_str(&line)
            .unwrap_or_else(|error| panic!("stdout line is not JSON ({error}): {line}"));
        match &value {
            Value::Array(batch) => {
                assert!(batch.iter().all(|item| item["jsonrpc"] == "2.0"), "{value}");
            }
            _ => assert_eq!(value["jsonrpc"], "2.0", "{value}"),
        }
        self.log.push(value.clone());
        Some(value)
    }

    /// The next message (from the backlog first).
    pub async fn next(&mut self) -> Value {
        if let Some(value) = self.backlog.pop_front() {
            return value;
        }
        self.read().await.expect("server closed stdout")
    }

    /// Waits for the first message matching `predicate`; others stay in the backlog.
    pub async fn take(&mut self, predicate: impl Fn(&Value) -> bool) -> Value {
        if let Some(position) = self.backlog.iter().position(&predicate) {
            return self.backlog.remove(position).expect("present");
        }
        loop {
            let value = self.read().await.expect("server closed stdout");
            if predicate(&value) {
                return value;
            }
            self.backlog.push_back(value);
        }
    }

    /// Sends a request and waits for its response.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.response(&id).await
    }

    /// Waits for the response to `id`.
    pub async fn response(&mut self, id: &Value) -> Value {
        self.take(|message| message.get("method").is_none() && &message["id"] == id)
            .await
    }

    /// `initialize` with `version` and `capabilities`, then `notifications/initialized`.
    pub async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let response = self
            .request(
                json!(0),
                "initialize",
                json!({
                    "protocolVersion": version,
                    "capabilities": capabilities,
                    "clientInfo": {"name": "mcp-test", "version": "1.0"},
                }),
            )
            .await;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    /// Closes stdin and returns every message the server still sends (after the backlog)
    /// until it closes stdout, and its exit code: the whole rest of the transcript, so that a
    /// test can assert what never came.
    pub async fn finish(&mut self) -> (Vec<Value>, Option<i32>) {
        self.close_stdin();
        let mut messages: Vec<Value> = self.backlog.drain(..).collect();
        loop {
            let line = tokio::time::timeout(READ_TIMEOUT, self.stdout.next_line())
                .await
                .expect("server did not close stdout after EOF")
                .expect("read stdout");
            let Some(line) = line else { break };
            let message: Value = serde_json::from_str(&line).expect("json");
            self.log.push(message.clone());
            messages.push(message);
        }
        let status = tokio::time::timeout(READ_TIMEOUT, self.child.wait())
            .await
            .expect("server did not exit after EOF")
            .expect("wait");
        (messages, status.code())
    }

    /// Closes stdin and waits for the exit code.
    pub async fn shutdown(mut self) -> Option<i32> {
        self.close_stdin();
        let status = tokio::time::timeout(READ_TIMEOUT, self.child.wait())
            .await
            .expect("server did not exit after EOF")
            .expect("wait");
        status.code()
    }
}

fn forward_stderr(child: &mut Child, prefix: &'static str) {
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("[{prefix}] {line}");
            }
        });
    }
}

/// `tandem mcp-server --http 127.0.0.1:0` and the URL it reported.
pub struct McpHttp {
    /// The child (killed on drop).
    pub child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// `TANDEM_HOME`.
    pub home: PathBuf,
    _home_dir: Option<tempfile::TempDir>,
    _redis: Option<crate::cluster::Redis>,
    /// The client used by the helpers.
    pub client: reqwest::Client,
    /// Every line the server wrote on stderr so far (but the one with its address).
    stderr_lines: tokio::sync::watch::Receiver<Vec<String>>,
}

impl McpHttp {
    /// Spawns the server in a fresh home with `config_toml` and extra arguments.
    pub async fn spawn(config_toml: &str, args: &[&str]) -> McpHttp {
        let home = home_with(config_toml);
        let path = home.path().to_path_buf();
        Self::spawn_in(path, Some(home), args, "info").await
    }

    /// Spawns the server in `home` (kept by the caller when `home_dir` is `None`).
    pub async fn spawn_in(
        home: PathBuf,
        home_dir: Option<tempfile::TempDir>,
        args: &[&str],
        rust_log: &str,
    ) -> McpHttp {
        Self::spawn_binary(&tandem_binary(), home, home_dir, args, rust_log).await
    }

    /// Spawns `binary mcp-server --http 127.0.0.1:0` in `home`, with `--auth none` unless
    /// `args` choose the authentication (`--auth`, `--auth-token-file`).
    pub async fn spawn_binary(
        binary: &Path,
        home: PathBuf,
        home_dir: Option<tempfile::TempDir>,
        args: &[&str],
        rust_log: &str,
    ) -> McpHttp {
        let mut all_args = vec!["--http", "127.0.0.1:0"];
        // A server on loopback without a token: the suites that are not about authentication
        // speak plain requests (binaries older than `--auth` accepted them by default).
        let chooses_auth = args
            .iter()
            .any(|arg| *arg == "--auth" || *arg == "--auth-token-file");
        if !chooses_auth && knows_auth_flag(binary).await {
            all_args.extend_from_slice(&["--auth", "none"]);
        }
        all_args.extend_from_slice(args);
        // `TANDEM_TEST_MCP_REDIS=1` runs every HTTP server of the suite as a one-node cluster
        // on its own redis-server, so that the single-node behaviour tests also cover the
        // Redis implementations.
        let redis = match std::env::var("TANDEM_TEST_MCP_REDIS").as_deref() {
            Ok("1") => Some(crate::cluster::Redis::start().await),
            _ => None,
        };
        if let Some(redis) = &redis {
            all_args.extend_from_slice(&["--redis", &redis.url]);
        }
        let mut child = command(binary, &home, &all_args, rust_log)
            .spawn()
            .expect("spawn tandem");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let mut before = Vec::new();
        let url = tokio::time::timeout(READ_TIMEOUT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("[mcp-http] {line}");
                if let Some(url) = line.strip_prefix("tandem mcp-server listening on ") {
                    return url.trim().to_string();
                }
                before.push(line);
            }
            panic!("server exited before listening");
        })
        .await
        .expect("server did not report its address");
        let (stderr_sender, stderr_lines) = tokio::sync::watch::channel(before);
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("[mcp-http] {line}");
                stderr_sender.send_modify(|lines| lines.push(line));
            }
        });
        // reqwest is built without a default TLS provider; the tests speak plain HTTP, but the
        // client still needs one installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        McpHttp {
            child,
            url,
            home,
            _home_dir: home_dir,
            _redis: redis,
            client: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("client"),
            stderr_lines,
        }
    }

    /// Every line the server wrote on stderr so far, except the one with its address.
    pub fn stderr_text(&self) -> String {
        self.stderr_lines.borrow().join("\n")
    }

    /// Waits until the server has written a stderr line equal to `line`; fails the test when
    /// it has not within `timeout`.
    pub async fn wait_for_stderr_line(&self, line: &str, timeout: Duration) {
        let mut lines = self.stderr_lines.clone();
        let seen = tokio::time::timeout(
            timeout,
            lines.wait_for(|lines| lines.iter().any(|seen| seen == line)),
        )
        .await;
        match seen {
            Ok(Ok(_)) => {}
            Ok(Err(_)) => panic!("the server closed stderr without writing `{line}`"),
            Err(_) => panic!("the server did not write `{line}` on stderr within {timeout:?}"),
        }
    }

    /// Waits for the line the server writes once the session `session_id` has expired and
    /// been closed (`tandem mcp-server: session expired: <id>`).
    pub async fn wait_for_session_expiry(&self, session_id: &str, timeout: Duration) {
        let line = format!("tandem mcp-server: session expired: {session_id}");
        self.wait_for_stderr_line(&line, timeout).await;
    }

    /// A POST to `/mcp` with the usual headers (JSON body, both Accept types).
    pub fn post(&self, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
        self.post_accept(session, body, "application/json, text/event-stream")
    }

    /// A POST to `/mcp` with a JSON body and this `Accept`.
    pub fn post_accept(
        &self,
        session: Option<&str>,
        body: &Value,
        accept: &str,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", accept)
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request
    }

    /// A POST of a 2026-07-28 request (no session) with the headers that era requires: the
    /// protocol version, `Mcp-Method` from the body, and `Mcp-Name` when `name` is given.
    pub fn post_2026(
        &self,
        body: &Value,
        name: Option<&str>,
        accept: &str,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .post_accept(None, body, accept)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", body["method"].as_str().unwrap_or_default());
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
        request
    }

    /// Initializes a session (JSON reply) and returns its id and the result.
    pub async fn initialize(&self, version: &str, capabilities: Value) -> (String, Value) {
        let response = self
            .post_accept(
                None,
                &json!({
                    "jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {
                        "protocolVersion": version,
                        "capabilities": capabilities,
                        "clientInfo": {"name": "mcp-http-test", "version": "1.0"},
                    },
                }),
                "application/json",
            )
            .send()
            .await
            .expect("initialize");
        assert_eq!(response.status(), 200);
        let session = response
            .headers()
            .get("mcp-session-id")
            .expect("session id header")
            .to_str()
            .expect("ascii")
            .to_string();
        let body: Value = response.json().await.expect("json");
        let initialized = self
            .post(
                Some(&session),
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .send()
            .await
            .expect("initialized");
        assert_eq!(initialized.status(), 202);
        (session, body["result"].clone())
    }

    /// The server's log file.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(self.home.join("log/tandem-mcp.log")).unwrap_or_default()
    }
}

/// Whether `binary mcp-server` takes `--auth` (a benchmark may run a binary that predates it);
/// asked once per binary.
async fn knows_auth_flag(binary: &Path) -> bool {
    static KNOWN: std::sync::Mutex<Vec<(PathBuf, bool)>> = std::sync::Mutex::new(Vec::new());
    let lookup = |known: &Vec<(PathBuf, bool)>| {
        known
            .iter()
            .find(|(path, _)| path == binary)
            .map(|(_, knows)| *knows)
    };
    if let Some(knows) = lookup(
        &KNOWN
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    ) {
        return knows;
    }
    let help = Command::new(binary)
        .args(["mcp-server", "--help"])
        .output()
        .await
        .expect("run tandem mcp-server --help");
    let knows = String::from_utf8_lossy(&help.stdout).contains("--auth <MODE>");
    KNOWN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push((binary.to_path_buf(), knows));
    knows
}

/// One SSE event as received.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `id:`.
    pub id: Option<String>,
    /// `data:` (joined).
    pub data: String,
    /// `retry:`.
    pub retry: Option<u64>,
}

impl Event {
    /// The data as JSON (`null` for a priming event).
    pub fn json(&self) -> Value {
        if self.data.is_empty() {
            return Value::Null;
        }
        serde_json::from_str(&self.data).expect("event data is JSON")
    }
}

/// Reads SSE events from a streaming response, skipping comments.
pub struct SseReader {
    stream: futures::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    buffer: String,
}

impl SseReader {
    /// Reads `response`'s body as SSE.
    pub fn new(response: reqwest::Response) -> SseReader {
        SseReader {
            stream: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next event, or `None` when the stream ends.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = Event {
                    id: None,
                    data: String::new(),
                    retry: None,
                };
                let mut is_comment = true;
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("id:") {
                        event.id = Some(value.trim_start().to_string());
                        is_comment = false;
                    } else if let Some(value) = line.strip_prefix("data:") {
                        if !event.data.is_empty() {
                            event.data.push('\n');
                        }
                        event
                            .data
                            .push_str(value.strip_prefix(' ').unwrap_or(value));
                        is_comment = false;
                    } else if let Some(value) = line.strip_prefix("retry:") {
                        event.retry = value.trim().parse().ok();
                        is_comment = false;
                    }
                }
                if is_comment {
                    continue;
                }
                return Some(event);
            }
            let chunk = tokio::time::timeout(READ_TIMEOUT, self.stream.next())
                .await
                .expect("timed out waiting for an SSE event")?;
            let chunk = chunk.expect("read SSE chunk");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Every remaining event until the stream ends.
    pub async fn rest(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }
}
