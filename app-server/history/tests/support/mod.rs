//! Test support: a real ClickHouse server per test (own config, data dir and loopback port),
//! and rollout writers.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The `clickhouse-server` binary (Debian's package); its absence fails the test.
pub const CLICKHOUSE_SERVER: &str = "/usr/sbin/clickhouse-server";

/// A ClickHouse server owned by one test; killed on drop.
pub struct ClickHouse {
    dir: tempfile::TempDir,
    pub http_port: u16,
    tcp_port: u16,
    child: Option<Child>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("free port")
}

impl ClickHouse {
    /// Writes a config and starts the server, waiting until `/ping` answers.
    pub fn start() -> ClickHouse {
        let _ = rustls::crypto::ring::default_provider().install_default();
        assert!(
            Path::new(CLICKHOUSE_SERVER).exists(),
            "{CLICKHOUSE_SERVER} is missing: install Debian's clickhouse-server (scripts/install-test-deps does)"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let mut server = ClickHouse {
            dir,
            http_port: free_port(),
            tcp_port: free_port(),
            child: None,
        };
        let root = server.dir.path().display().to_string();
        std::fs::write(
            server.dir.path().join("config.xml"),
            format!(
                r#"<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <http_port>{}</http_port>
  <tcp_port>{}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>{root}/data/</path>
  <tmp_path>{root}/tmp/</tmp_path>
  <user_files_path>{root}/user_files/</user_files_path>
  <format_schema_path>{root}/format_schemas/</format_schema_path>
  <users_config>{root}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
</yandex>
"#,
                server.http_port, server.tcp_port
            ),
        )
        .expect("config.xml");
        std::fs::write(
            server.dir.path().join("users.xml"),
            r#"<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
"#,
        )
        .expect("users.xml");
        server.resume();
        server
    }

    /// The HTTP URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    /// Kills the server (SIGKILL) and waits for it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same ports and data dir.
    pub fn resume(&mut self) {
        let child = Command::new(CLICKHOUSE_SERVER)
            .arg(format!(
                "--config-file={}",
                self.dir.path().join("config.xml").display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn clickhouse-server");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        let client = reqwest::blocking::Client::new();
        loop {
            let ready = client
                .get(format!("{}/ping", self.url()))
                .timeout(Duration::from_secs(1))
                .send()
                .is_ok_and(|response| response.status().is_success());
            if ready {
                return;
            }
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("clickhouse-server exited during startup: {status}");
            }
            assert!(Instant::now() < deadline, "clickhouse-server did not start");
            // Polling the server's readiness endpoint; there is no event to wait on.
            std::thread::park_timeout(Duration::from_millis(100));
        }
    }
}

impl Drop for ClickHouse {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Writes rollouts in Tandem's format.
pub struct RolloutWriter {
    pub path: PathBuf,
    file: std::fs::File,
    turn: usize,
    clock_ms: i64,
}

impl RolloutWriter {
    pub fn create(dir: &Path, session_id: &str) -> RolloutWriter {
        Self::with_meta(dir, session_id, json!({"id": session_id, "cwd": "/p"}))
    }

    /// A rollout whose header names `owner` as the thread's owner.
    pub fn create_owned(dir: &Path, session_id: &str, owner: &str) -> RolloutWriter {
        Self::with_meta(
            dir,
            session_id,
            json!({"id": session_id, "cwd": "/p", "owner": owner}),
        )
    }

    fn with_meta(dir: &Path, session_id: &str, meta: Value) -> RolloutWriter {
        std::fs::create_dir_all(dir).expect("mkdir");
        let path = dir.join(format!("rollout-{session_id}.jsonl"));
        let file = std::fs::File::create(&path).expect("create");
        let mut writer = RolloutWriter {
            path,
            file,
            turn: 0,
            clock_ms: 1_795_000_000_000,
        };
        writer.line("session_meta", json!({"version": 1, "meta": meta}));
        writer
    }

    pub fn line(&mut self, kind: &str, payload: Value) {
        self.clock_ms += 1000;
        let line = json!({
            "timestamp": tandem_history::event::format_timestamp(self.clock_ms),
            "type": kind,
            "payload": payload,
        });
        writeln!(self.file, "{line}").expect("write");
    }

    pub fn raw(&mut self, text: &str) {
        writeln!(self.file, "{text}").expect("write");
    }

    /// One turn: user message, agent reply, optionally a command with output and a tool call.
    pub fn turn(&mut self, user: &str, agent: &str, command: Option<(&str, &str)>) {
        self.turn += 1;
        let turn_id = format!("turn-{}", self.turn);
        self.line("turn_started", json!({"turn_id": turn_id, "started_at": 1}));
        self.line(
            "item",
            json!({"turn_id": turn_id, "item": {"type": "userMessage", "id": "u", "content": [{"type": "text", "text": user}]}}),
        );
        if let Some((command, output)) = command {
            self.line(
                "response_item",
                json!({"turn_id": turn_id, "item": {"type": "function_call", "call_id": "c", "name": "exec_command", "arguments": json!({"cmd": command}).to_string()}}),
            );
            self.line(
                "item",
                json!({"turn_id": turn_id, "item": {"type": "commandExecution", "id": "c", "command": command, "cwd": "/p", "status": "completed", "commandActions": [], "aggregatedOutput": output, "exitCode": 0}}),
            );
            self.line(
                "response_item",
                json!({"turn_id": turn_id, "item": {"type": "function_call_output", "call_id": "c", "output": output}}),
            );
        }
        self.line(
            "item",
            json!({"turn_id": turn_id, "item": {"type": "agentMessage", "id": "a", "text": agent}}),
        );
        self.line(
            "token_usage",
            json!({"turn_id": turn_id, "usage": {"total": {"totalTokens": 10 * self.turn}}}),
        );
        self.line(
            "turn_completed",
            json!({"turn_id": turn_id, "status": "completed", "error": null, "completed_at": 2, "duration_ms": 5}),
        );
    }
}
