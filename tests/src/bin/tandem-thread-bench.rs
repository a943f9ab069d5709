//! Benchmark of `thread/items/list` and `thread/delete` in a home of many stored threads.
//!
//! ```sh
//! cargo build --bins
//! target/debug/tandem-thread-bench                        # 10,000 threads, 200 calls each
//! target/debug/tandem-thread-bench --threads 1000 --runs 50
//! ```
//!
//! One real thread (a turn of three user messages answered by the mock model) is recorded by
//! `tandem app-server`; its rollout is copied under new thread ids until the home holds
//! `--threads` of them, the history index ingests them all (`tandem history ingest`), and a new
//! server, whose thread index is rebuilt from the rollouts, answers `thread/items/list` and
//! `thread/delete` for `--runs` threads picked across the home (none of them loaded). Each
//! latency is measured from the request line written to its response line read, one request
//! at a time.

#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a benchmark tool prints and fails loudly"
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::mock_config;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

struct Options {
    binary: PathBuf,
    threads: usize,
    runs: usize,
}

fn parse_options() -> Options {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        binary: std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|dir| dir.join("tandem")))
            .unwrap_or_default(),
        threads: 10_000,
        runs: 200,
    };
    while let Some(arg) = args.next() {
        let mut number = |default: usize| {
            args.next()
                .and_then(|value| value.parse().ok())
                .unwrap_or(default)
        };
        match arg.as_str() {
            "--threads" => options.threads = number(options.threads).max(1),
            "--runs" => options.runs = number(options.runs).max(1),
            "--help" | "-h" => {
                println!("usage: tandem-thread-bench [--threads N] [--runs N]");
                std::process::exit(0);
            }
            other => {
                eprintln!("tandem-thread-bench: unknown argument `{other}` (try --help)");
                std::process::exit(2);
            }
        }
    }
    options.runs = options.runs.min(options.threads);
    options
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl Server {
    async fn spawn(binary: &Path, home: &Path) -> Server {
        let mut child = Command::new(binary)
            .arg("app-server")
            .env("TANDEM_HOME", home)
            .env("RUST_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn tandem app-server");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().unwrap()).lines();
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        server
            .request(
                "initialize",
                json!({"clientInfo": {"name": "tandem_thread_bench", "version": "0.1.0"}}),
            )
            .await;
        server
    }

    /// Sends a request and waits for its response, skipping notifications.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let line = format!(
            "{}\n",
            json!({"id": id, "method": method, "params": params})
        );
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(300), self.stdout.next_line())
                .await
                .expect("server timed out")
                .unwrap()
                .expect("server closed stdout");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// Waits for the notification `method`.
    async fn notification(&mut self, method: &str) {
        let prefix = format!("{{\"method\":\"{method}\"");
        loop {
            let line = tokio::time::timeout(Duration::from_secs(60), self.stdout.next_line())
                .await
                .expect("server timed out")
                .unwrap()
                .expect("server closed stdout");
            if line.starts_with(&prefix) {
                return;
            }
        }
    }

    async fn close(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

fn percentile(values: &mut [Duration], percent: usize) -> Duration {
    values.sort();
    values[(values.len() * percent / 100).min(values.len() - 1)]
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

/// A fresh UUIDv7-shaped thread id for copy `index`, greater than every real id of today so
/// that the copies sort after the template.
fn copy_id(index: usize) -> String {
    format!("01ffffff-{:04x}-7000-8000-{index:012x}", index >> 48)
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    let model = MockModel::start().await;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    // History ingests happen below, all at once.
    let config = format!(
        "{}\n[history]\nauto_ingest = false\n",
        mock_config(&model.base_url())
    );
    std::fs::write(home.join("config.toml"), config).unwrap();

    // One real thread of three turns.
    let mut server = Server::spawn(&options.binary, &home).await;
    let started = server.request("thread/start", json!({"cwd": "/tmp"})).await;
    let template = started["result"]["thread"]["id"]
        .as_str()
        .expect("thread id")
        .to_string();
    for turn in 0..3 {
        model.push(MockResponse::sse(responses_text(
            "msg_bench",
            &[&format!(
                "Answer {turn} about pelicans and their migration routes."
            )],
        )));
        server
            .request(
                "turn/start",
                json!({"threadId": template, "input": [{"type": "text", "text": format!("Question {turn} about pelicans")}]}),
            )
            .await;
        server.notification("turn/completed").await;
    }
    server.close().await;

    // Copies of its rollout under new ids, beside it.
    let populate = Instant::now();
    let template_path = find_rollout(&home.join("sessions"), &template).expect("template rollout");
    let text = std::fs::read_to_string(&template_path).unwrap();
    let directory = template_path.parent().unwrap().to_path_buf();
    let file_name = template_path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let mut ids = vec![template.clone()];
    for index in 1..options.threads {
        let id = copy_id(index);
        std::fs::write(
            directory.join(file_name.replace(&template, &id)),
            text.replace(&template, &id),
        )
        .unwrap();
        ids.push(id);
    }
    std::fs::remove_file(home.join("state.sqlite")).ok();
    let ingest = std::process::Command::new(&options.binary)
        .args(["history", "ingest"])
        .env("TANDEM_HOME", &home)
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .status()
        .expect("tandem history ingest");
    assert!(ingest.success(), "tandem history ingest failed");
    println!(
        "home of {} threads written and ingested in {:.1} s",
        options.threads,
        populate.elapsed().as_secs_f64()
    );

    let mut server = Server::spawn(&options.binary, &home).await;
    let rebuild = Instant::now();
    let listed = server.request("thread/list", json!({"limit": 1})).await;
    assert_eq!(listed["result"]["data"].as_array().map(Vec::len), Some(1));
    println!(
        "first thread/list (index rebuilt from {} rollouts): {}",
        options.threads,
        ms(rebuild.elapsed())
    );
    let step = (ids.len() / options.runs).max(1);
    let picked: Vec<String> = ids
        .iter()
        .step_by(step)
        .take(options.runs)
        .cloned()
        .collect();

    let mut items_times = Vec::new();
    for id in &picked {
        let started = Instant::now();
        let page = server
            .request("thread/items/list", json!({"threadId": id, "limit": 50}))
            .await;
        items_times.push(started.elapsed());
        assert_eq!(
            page["result"]["data"].as_array().map(Vec::len),
            Some(6),
            "{page}"
        );
    }
    println!(
        "thread/items/list (stored thread, 6 items) at {} threads, {} calls: p50 {}, p99 {}",
        options.threads,
        items_times.len(),
        ms(percentile(&mut items_times, 50)),
        ms(percentile(&mut items_times, 99))
    );

    let mut delete_times = Vec::new();
    for id in &picked {
        let started = Instant::now();
        let deleted = server
            .request("thread/delete", json!({"threadId": id}))
            .await;
        delete_times.push(started.elapsed());
        assert_eq!(deleted["result"], json!({}), "{deleted}");
    }
    println!(
        "thread/delete (stored thread, history indexed) at {} threads, {} calls: p50 {}, p99 {}",
        options.threads,
        delete_times.len(),
        ms(percentile(&mut delete_times, 50)),
        ms(percentile(&mut delete_times, 99))
    );
    let listed = server
        .request("thread/list", json!({"limit": options.threads}))
        .await;
    assert_eq!(
        listed["result"]["data"].as_array().map(Vec::len),
        Some(options.threads - picked.len())
    );
    server.close().await;
}

/// The rollout of thread `id` under `directory`.
fn find_rollout(directory: &Path, id: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(directory).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_rollout(&path, id) {
                return Some(found);
            }
        } else if path.to_string_lossy().contains(id) {
            return Some(path);
        }
    }
    None
}
