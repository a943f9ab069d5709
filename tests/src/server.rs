//! A typed test client that spawns the real `tandem` binary and speaks JSONL over its pipes.
//!
//! Every read has a timeout. Messages that arrive while the client waits for something else are
//! kept in order, so a test can assert on the exact sequence afterwards.

#![allow(
    clippy::expect_used,
    reason = "test support: a broken pipe or a timeout must fail the test loudly"
)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use app_server_protocol::tables_meta::{Notification, Request};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long any single read may take before the test fails.
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// The `tandem` binary under test: `$TANDEM_BIN`, or the one cargo built next to this test.
///
/// Integration tests live in their own crate, so cargo does not build the binary for them; the
/// README's test command runs `cargo build --bins` first.
pub fn tandem_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("TANDEM_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    // A benchmark binary lives beside `tandem` (target/<profile>/<bench>); a test binary one
    // level below (target/<profile>/deps/<test>).
    let beside = exe.parent().map(|dir| dir.join("tandem"));
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let binary = match beside {
        Some(beside) if beside.is_file() => beside,
        _ => profile_dir.join("tandem"),
    };
    assert!(
        binary.exists(),
        "tandem binary not found at {}; run `cargo build --bins` first or set TANDEM_BIN",
        binary.display()
    );
    binary
}

/// A running `tandem app-server` with a private `TANDEM_HOME`.
pub struct TestServer {
    /// The child process (killed on drop).
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    /// Messages read but not consumed yet.
    backlog: VecDeque<Value>,
    /// Every server→client message, in order.
    pub log: Vec<Value>,
    next_id: i64,
    /// `TANDEM_HOME`.
    pub home: PathBuf,
    _home_dir: Option<tempfile::TempDir>,
}

/// Options for [`TestServer::spawn_with`].
pub struct SpawnOptions {
    /// Contents of `config.toml`.
    pub config_toml: String,
    /// Extra arguments after `app-server`.
    pub args: Vec<String>,
    /// Reuse this home (restart tests); `None` makes a fresh temp dir.
    pub home: Option<PathBuf>,
    /// Working directory of the server process.
    pub cwd: Option<PathBuf>,
}

/// Config for a provider `mock` at `base_url` (Responses wire) as the default.
pub fn mock_config(base_url: &str) -> String {
    format!(
        "model_provider = \"mock\"\nmodel = \"mock-model\"\napproval_policy = \"never\"\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"{base_url}\"\nwire_api = \"responses\"\nrequest_max_retries = 2\nstream_max_retries = 2\nstream_idle_timeout_ms = 5000\n"
    )
}

impl TestServer {
    /// Spawns `tandem app-server` with `config_toml` in a fresh home.
    pub async fn spawn(config_toml: &str) -> TestServer {
        Self::spawn_with(SpawnOptions {
            config_toml: config_toml.to_string(),
            args: Vec::new(),
            home: None,
            cwd: None,
        })
        .await
    }

    /// Spawns with options.
    pub async fn spawn_with(options: SpawnOptions) -> TestServer {
        Self::spawn_with_env(options, &[]).await
    }

    /// Spawns with options and these variables added to the server's environment (the tests'
    /// own `OPENAI_API_KEY` is never passed; set one here to play a server that holds a key).
    pub async fn spawn_with_env(options: SpawnOptions, env: &[(&str, &str)]) -> TestServer {
        let (home, home_dir) = match options.home {
            Some(home) => (home, None),
            None => {
                let dir = tempfile::tempdir().expect("temp home");
                (dir.path().to_path_buf(), Some(dir))
            }
        };
        // Processes may share a home and start while the next one is spawned: they must never
        // read a half-written config, so it is replaced whole.
        let staged = home.join(".config.toml.staged");
        std::fs::write(&staged, &options.config_toml).expect("write config");
        std::fs::rename(&staged, home.join("config.toml")).expect("write config");
        let mut command = Command::new(tandem_binary());
        command
            .arg("app-server")
            .args(&options.args)
            .env("TANDEM_HOME", &home)
            .env(
                "RUST_LOG",
                std::env::var("TANDEM_TEST_LOG").unwrap_or_else(|_| "warn".to_string()),
            )
            .env_remove("OPENAI_API_KEY")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(cwd) = &options.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().expect("spawn tandem");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    eprintln!("[tandem] {line}");
                }
            });
        }
        TestServer {
            child,
            stdin,
            stdout,
            backlog: VecDeque::new(),
            log: Vec::new(),
            next_id: 1,
            home,
            _home_dir: home_dir,
        }
    }

    /// Writes one raw line (a newline is added).
    pub async fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).await.expect("write");
        stdin.write_all(b"\n").await.expect("write");
        stdin.flush().await.expect("flush");
    }

    /// Writes one message.
    pub async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await;
    }

    /// Closes stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Sends a request with the next integer id and returns the id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a request and waits for its response; `Ok(result)` or `Err(error object)`.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// Waits for the response to `id`, keeping other messages in the backlog.
    pub async fn response(&mut self, id: i64) -> Result<Value, Value> {
        let message = self
            .take_matching(|message| {
                message.get("id") == Some(&json!(id)) && message.get("method").is_none()
            })
            .await;
        match message.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(message.get("error").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Sends the request `M` of the client table and waits for its response, decoded as the
    /// table's response type (a result that does not decode fails the test, naming the
    /// method); `Err(error object)` for an error response.
    pub async fn call<M: Request>(&mut self, params: M::Params) -> Result<M::Response, Value> {
        let params = serde_json::to_value(&params).expect("params serialize");
        let result = self.request(M::METHOD, params).await?;
        Ok(decode::<M::Response>(M::METHOD, result))
    }

    /// Waits for the next notification `N` of the server table and returns its params,
    /// decoded as the table's type; messages before it stay in the backlog.
    pub async fn notification_of<N: Notification>(&mut self) -> N::Params {
        let params = self.notification(N::METHOD).await;
        decode::<N::Params>(N::METHOD, params)
    }

    /// Waits for the next server request `M` of the server table; returns its id and its
    /// params, decoded as the table's type. Other messages stay in the backlog.
    pub async fn server_request_of<M: Request>(&mut self) -> (Value, M::Params) {
        let message = self
            .take_matching(|message| {
                message.get("method") == Some(&json!(M::METHOD)) && message.get("id").is_some()
            })
            .await;
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        (id, decode::<M::Params>(M::METHOD, params))
    }

    /// Answers the server request `M` (of id `id`) with a typed result.
    pub async fn answer<M: Request>(&mut self, id: Value, result: M::Response) {
        let result = serde_json::to_value(&result).expect("result serialize");
        self.send(&json!({"id": id, "result": result})).await;
    }

    /// `initialize` + `initialized` with `capabilities`.
    pub async fn initialize_with(&mut self, capabilities: Value) -> Value {
        let result = self
            .request(
                "initialize",
                json!({"clientInfo": {"name": "example_client", "title": "Example client", "version": "0.1.0"}, "capabilities": capabilities}),
            )
            .await
            .expect("initialize");
        self.send(&json!({"method": "initialized"})).await;
        result
    }

    /// `initialize` with default capabilities.
    pub async fn initialize(&mut self) -> Value {
        self.initialize_with(json!({"experimentalApi": false}))
            .await
    }

    /// The next message, from the backlog or the pipe.
    pub async fn next_message(&mut self) -> Value {
        if let Some(message) = self.backlog.pop_front() {
            return message;
        }
        self.read_message().await
    }

    /// Waits for the next notification with `method` and returns its params; messages before
    /// it stay in the backlog.
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

    /// Reads messages until `turn/completed` and returns every message up to and including it
    /// (backlog first).
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

    /// Removes and returns the first message (backlog, then pipe) matching `predicate`.
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

    /// Messages read but not consumed.
    pub fn drain_backlog(&mut self) -> Vec<Value> {
        self.backlog.drain(..).collect()
    }

    /// Reads one line from stdout, failing the test on timeout, EOF or a non-JSON line.
    async fn read_message(&mut self) -> Value {
        let line = tokio::time::timeout(READ_TIMEOUT, self.stdout.next_line())
            .await
            .expect("timed out waiting for a message from tandem")
            .expect("read stdout")
            .expect("tandem closed stdout");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|error| panic!("stdout line is not JSON ({error}): {line}"));
        self.log.push(message.clone());
        message
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

    /// Closes stdin and waits for the process to exit; returns its exit code.
    pub async fn shutdown(mut self) -> Option<i32> {
        self.close_stdin();
        let status = tokio::time::timeout(READ_TIMEOUT, self.child.wait())
            .await
            .expect("tandem did not exit")
            .expect("wait");
        status.code()
    }
}

/// Decodes `value` as the table's type for `method`, failing the test with both in the message.
fn decode<T: DeserializeOwned>(method: &str, value: Value) -> T {
    match serde_json::from_value(value.clone()) {
        Ok(decoded) => decoded,
        Err(error) => panic!("{method}: does not decode as its table type ({error}): {value}"),
    }
}

/// The `method` of each message (`"response"` / `"error"` for replies), for order assertions.
pub fn methods(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .map(
            |message| match message.get("method").and_then(Value::as_str) {
                Some(method) => method.to_string(),
                None if message.get("error").is_some() => "error-response".to_string(),
                None => "response".to_string(),
            },
        )
        .collect()
}
