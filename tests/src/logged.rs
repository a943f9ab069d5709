//! A `tandem` server on stdio whose log the test reads line by line: for tests that wait on
//! what the server logs (a warm-up, a signal) or on how and when it exits, which the plain
//! JSON-RPC clients of `server.rs` and `mcp.rs` do not expose.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test support: a broken pipe or a timeout must fail the test loudly"
)]

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

use crate::server::{READ_TIMEOUT, tandem_binary};

/// `tandem <command>` in `cwd`, with its home elsewhere and its log (`info`) on stderr.
pub struct LoggedServer {
    /// The server process.
    pub child: Child,
    /// Its stdin; `None` closes it (EOF).
    pub stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: mpsc::UnboundedReceiver<String>,
    _home: tempfile::TempDir,
}

impl LoggedServer {
    /// Starts `tandem <command>` in `cwd` with `config_toml` in a fresh home. An MCP server
    /// logs to `$TANDEM_HOME/log/tandem-mcp.log`, or to stderr when that cannot be opened: a
    /// plain file named `log` in its home sends the log to stderr.
    pub async fn spawn(command: &str, cwd: &Path, config_toml: &str) -> LoggedServer {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), config_toml).unwrap();
        if command == "mcp-server" {
            std::fs::write(home.path().join("log"), "").unwrap();
        }
        let mut child = Command::new(tandem_binary())
            .arg(command)
            .current_dir(cwd)
            .env("TANDEM_HOME", home.path())
            .env("RUST_LOG", "info")
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let (lines, stderr) = mpsc::unbounded_channel();
        let mut reader = BufReader::new(child.stderr.take().unwrap()).lines();
        tokio::spawn(async move {
            while let Ok(Some(line)) = reader.next_line().await {
                eprintln!("[tandem] {line}");
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        LoggedServer {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().unwrap()).lines(),
            child,
            stderr,
            _home: home,
        }
    }

    /// Writes one message.
    pub async fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
    }

    /// The next message on stdout, `None` once the server has closed it.
    pub async fn next(&mut self) -> Option<Value> {
        self.next_within(READ_TIMEOUT).await
    }

    /// The next message on stdout within `limit`, `None` once the server has closed it.
    pub async fn next_within(&mut self, limit: Duration) -> Option<Value> {
        let line = tokio::time::timeout(limit, self.stdout.next_line())
            .await
            .expect("timed out waiting for the server")
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap())
    }

    /// The next message satisfying `wanted` (others are skipped).
    pub async fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self.next().await.expect("the server closed stdout");
            if wanted(&message) {
                return message;
            }
        }
    }

    /// The response to request `id` (other messages are skipped).
    pub async fn response(&mut self, id: i64) -> Value {
        self.until(|message| message["id"] == id && message.get("method").is_none())
            .await
    }

    /// Every message until the server closes stdout.
    pub async fn rest(&mut self) -> Vec<Value> {
        let mut messages = Vec::new();
        while let Some(message) = self.next().await {
            messages.push(message);
        }
        messages
    }

    /// Waits for a log line containing `needle` and returns it.
    pub async fn log_line(&mut self, needle: &str) -> String {
        tokio::time::timeout(READ_TIMEOUT, async {
            while let Some(line) = self.stderr.recv().await {
                if line.contains(needle) {
                    return line;
                }
            }
            panic!("the server exited without logging `{needle}`");
        })
        .await
        .unwrap_or_else(|_| panic!("no log line with `{needle}`"))
    }

    /// Sends the server SIGTERM.
    pub fn terminate(&self) {
        let pid = self.child.id().unwrap() as libc::pid_t;
        // SAFETY: `pid` is our own child, which has not been waited for.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    }

    /// Waits at most `guard` for the process to exit; its exit code and the time since `since`.
    pub async fn exit(&mut self, since: Instant, guard: Duration) -> (Option<i32>, Duration) {
        let status = tokio::time::timeout(guard, self.child.wait())
            .await
            .expect("the server did not exit")
            .unwrap();
        (status.code(), since.elapsed())
    }
}
