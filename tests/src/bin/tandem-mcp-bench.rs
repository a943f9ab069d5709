//! Benchmark of `tandem mcp-server` over stdio and streamable HTTP, against the mock model
//! over real HTTP: round trips of `ping`, and whole `codex` calls (thread, streamed turn,
//! result), sequential and from concurrent MCP sessions.
//!
//! ```sh
//! cargo build --release --bins
//! target/release/tandem-mcp-bench                       # benchmarks target/release/tandem
//! target/release/tandem-mcp-bench --calls 500 --pings 5000 --sessions 100 --idle-sessions 1000
//! ```
//!
//! Then it measures `ping` latency on one HTTP session while `--load-sessions` other sessions
//! (50 by default) each run `codex` calls back to back: what a busy server does to a client
//! that only wants an answer.
//!
//! Last, it opens `--idle-sessions` MCP sessions on a fresh HTTP server and prints the server's
//! resident memory before and after, per session.

#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a benchmark tool prints and fails loudly"
)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, McpStdio, SseReader, home_with};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text, token_deltas};
use tandem_tests::server::mock_config;

struct Options {
    binary: PathBuf,
    calls: usize,
    pings: usize,
    sessions: usize,
    load_sessions: usize,
    idle_sessions: usize,
}

fn parse_options() -> Options {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        binary: std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|dir| dir.join("tandem")))
            .unwrap_or_default(),
        calls: 100,
        pings: 1000,
        sessions: 8,
        load_sessions: 50,
        idle_sessions: 1000,
    };
    while let Some(arg) = args.next() {
        let mut number =
            |default: usize| args.next().and_then(|n| n.parse().ok()).unwrap_or(default);
        match arg.as_str() {
            "--calls" => options.calls = number(options.calls).max(1),
            "--pings" => options.pings = number(options.pings).max(1),
            "--sessions" => options.sessions = number(options.sessions).max(1),
            "--idle-sessions" => options.idle_sessions = number(options.idle_sessions),
            "--load-sessions" => options.load_sessions = number(options.load_sessions),
            "--server" => options.binary = args.next().map(PathBuf::from).unwrap_or_default(),
            "--help" | "-h" => {
                println!(
                    "usage: tandem-mcp-bench [--server PATH] [--calls N] [--pings N] [--sessions N] [--load-sessions N] [--idle-sessions N]"
                );
                std::process::exit(0);
            }
            other => {
                eprintln!("tandem-mcp-bench: unknown argument `{other}` (try --help)");
                std::process::exit(2);
            }
        }
    }
    options
}

/// Latencies of one measurement.
struct Samples {
    name: String,
    durations: Vec<Duration>,
    wall: Duration,
}

impl Samples {
    fn print(&mut self) {
        self.durations.sort();
        let percentile = |p: f64| {
            let index = ((self.durations.len() as f64 - 1.0) * p).round() as usize;
            self.durations[index].as_secs_f64() * 1000.0
        };
        let rate = self.durations.len() as f64 / self.wall.as_secs_f64();
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.0} |",
            self.name,
            self.durations.len(),
            percentile(0.5),
            percentile(0.99),
            percentile(1.0),
            rate
        );
    }
}

fn ping(id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

fn codex(id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "codex", "arguments": {"prompt": "Say something."}}})
}

fn push_answers(model: &MockModel, count: usize) {
    model.push_all((0..count).map(|_| MockResponse::sse(responses_text("msg", &token_deltas(16)))));
}

async fn stdio(options: &Options, model: &MockModel) -> Vec<Samples> {
    let mut server = McpStdio::spawn_binary(
        &options.binary,
        &mock_config(&model.base_url()),
        &[],
        "error",
    )
    .await;
    server.initialize("2025-06-18", json!({})).await;
    let mut pings = Samples {
        name: "stdio ping".into(),
        durations: Vec::new(),
        wall: Duration::ZERO,
    };
    let start = Instant::now();
    for id in 0..options.pings {
        let sent = Instant::now();
        server.request(json!(id + 1), "ping", json!({})).await;
        pings.durations.push(sent.elapsed());
    }
    pings.wall = start.elapsed();
    push_answers(model, options.calls);
    let mut calls = Samples {
        name: "stdio codex call".into(),
        durations: Vec::new(),
        wall: Duration::ZERO,
    };
    let start = Instant::now();
    for id in 0..options.calls {
        let sent = Instant::now();
        let message = codex(1_000_000 + id);
        server.send(&message).await;
        let response = server.response(&message["id"]).await;
        assert_eq!(response["result"]["isError"], false, "{response}");
        calls.durations.push(sent.elapsed());
        // Keep memory flat: the events are not needed.
        server.log.clear();
    }
    calls.wall = start.elapsed();
    server.shutdown().await;
    vec![pings, calls]
}

async fn http(options: &Options, model: &MockModel) -> Vec<Samples> {
    let home = home_with(&mock_config(&model.base_url()));
    let path = home.path().to_path_buf();
    let server = McpHttp::spawn_binary(
        &options.binary,
        path,
        Some(home),
        &["--session-ttl", "1h"],
        "error",
    )
    .await;
    let (session, _) = server.initialize("2025-11-25", json!({})).await;
    let mut results = Vec::new();
    for (name, stream) in [("http ping (JSON)", "0"), ("http ping (SSE)", "1")] {
        let mut samples = Samples {
            name: name.into(),
            durations: Vec::new(),
            wall: Duration::ZERO,
        };
        let start = Instant::now();
        for id in 0..options.pings {
            let sent = Instant::now();
            let response = server
                .post(Some(&session), &ping(id))
                .header("x-mcp-post-stream", stream)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            let _ = response.bytes().await.unwrap();
            samples.durations.push(sent.elapsed());
        }
        samples.wall = start.elapsed();
        results.push(samples);
    }

    push_answers(model, options.calls);
    let mut calls = Samples {
        name: "http codex call (SSE)".into(),
        durations: Vec::new(),
        wall: Duration::ZERO,
    };
    let start = Instant::now();
    for id in 0..options.calls {
        let sent = Instant::now();
        let response = server
            .post(Some(&session), &codex(id))
            .send()
            .await
            .unwrap();
        let events = SseReader::new(response).rest().await;
        assert_eq!(
            events
                .last()
                .map(|event| event.json()["result"]["isError"].clone()),
            Some(json!(false))
        );
        calls.durations.push(sent.elapsed());
    }
    calls.wall = start.elapsed();
    results.push(calls);

    // Concurrent MCP sessions, each running its share of the calls.
    push_answers(model, options.calls);
    let mut sessions = Vec::new();
    for _ in 0..options.sessions {
        sessions.push(server.initialize("2025-11-25", json!({})).await.0);
    }
    let per_session = options.calls.div_ceil(options.sessions);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (index, session) in sessions.into_iter().enumerate() {
        let client = server.client.clone();
        let url = server.url.clone();
        let count = per_session.min(options.calls.saturating_sub(index * per_session));
        tasks.push(tokio::spawn(async move {
            let mut durations = Vec::new();
            for id in 0..count {
                let sent = Instant::now();
                let response = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json")
                    .header("mcp-session-id", &session)
                    .body(codex(id).to_string())
                    .send()
                    .await
                    .unwrap();
                let body: Value = response.json().await.unwrap();
                assert_eq!(body["result"]["isError"], false, "{body}");
                durations.push(sent.elapsed());
            }
            durations
        }));
    }
    let mut concurrent = Samples {
        name: format!("http codex call, {} sessions (JSON)", options.sessions),
        durations: Vec::new(),
        wall: Duration::ZERO,
    };
    for task in tasks {
        concurrent.durations.extend(task.await.unwrap());
    }
    concurrent.wall = start.elapsed();
    results.push(concurrent);
    results
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    assert!(
        options.binary.exists(),
        "no tandem binary at {}; build it or pass --server PATH",
        options.binary.display()
    );
    let model = MockModel::start().await;
    println!(
        "tandem-mcp-bench: {} (16-delta answers from the mock model)\n",
        options.binary.display()
    );
    println!("| measurement | count | p50 ms | p99 ms | max ms | per second |");
    println!("|---|---|---|---|---|---|");
    for mut samples in stdio(&options, &model).await {
        samples.print();
    }
    for mut samples in http(&options, &model).await {
        samples.print();
    }
    if options.load_sessions > 0 {
        ping_under_load(&options, &model).await;
    }
    if options.idle_sessions > 0 {
        idle_sessions(&options, &model).await;
    }
}

/// Resident memory of `pid` in KiB (`VmRSS` in `/proc/PID/status`).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

/// Memory per idle MCP session: RSS after one session, then after `--idle-sessions` more.
async fn idle_sessions(options: &Options, model: &MockModel) {
    let home = home_with(&mock_config(&model.base_url()));
    let path = home.path().to_path_buf();
    let server = McpHttp::spawn_binary(
        &options.binary,
        path,
        Some(home),
        &["--session-ttl", "1h"],
        "error",
    )
    .await;
    let pid = server.child.id().expect("server pid");
    server.initialize("2025-11-25", json!({})).await;
    let before = rss_kib(pid);
    let start = Instant::now();
    for _ in 0..options.idle_sessions {
        server.initialize("2025-11-25", json!({})).await;
    }
    let opened = start.elapsed();
    let after = rss_kib(pid);
    let per_session = (after.saturating_sub(before)) as f64 / options.idle_sessions as f64;
    println!(
        "\n{} idle MCP sessions opened in {:.0} ms: server RSS {:.1} MiB -> {:.1} MiB, {:.1} KiB per session",
        options.idle_sessions,
        opened.as_secs_f64() * 1000.0,
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        per_session
    );
}

/// `ping` round trips on one HTTP session while `--load-sessions` other sessions each run
/// `codex` calls back to back (at most [`LOAD_CALLS_PER_SESSION`] each).
async fn ping_under_load(options: &Options, model: &MockModel) {
    const LOAD_CALLS_PER_SESSION: usize = 200;
    let home = home_with(&mock_config(&model.base_url()));
    let path = home.path().to_path_buf();
    let server = McpHttp::spawn_binary(
        &options.binary,
        path,
        Some(home),
        &["--session-ttl", "1h"],
        "error",
    )
    .await;
    push_answers(model, options.load_sessions * LOAD_CALLS_PER_SESSION);
    let (pinger, _) = server.initialize("2025-11-25", json!({})).await;
    let stop = Arc::new(AtomicBool::new(false));
    let completed = Arc::new(AtomicUsize::new(0));
    let mut loaders = Vec::new();
    for _ in 0..options.load_sessions {
        let (session, _) = server.initialize("2025-11-25", json!({})).await;
        let client = server.client.clone();
        let url = server.url.clone();
        let stop = Arc::clone(&stop);
        let completed = Arc::clone(&completed);
        loaders.push(tokio::spawn(async move {
            for id in 0..LOAD_CALLS_PER_SESSION {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let response = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json")
                    .header("mcp-session-id", &session)
                    .body(codex(id).to_string())
                    .send()
                    .await
                    .unwrap();
                let body: Value = response.json().await.unwrap();
                assert_eq!(body["result"]["isError"], false, "{body}");
                completed.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    // Measure once every loader has a turn going.
    while completed.load(Ordering::Relaxed) < options.load_sessions {
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let mut samples = Samples {
        name: format!(
            "http ping (JSON), {} other sessions running turns",
            options.load_sessions
        ),
        durations: Vec::new(),
        wall: Duration::ZERO,
    };
    let calls_before = completed.load(Ordering::Relaxed);
    let start = Instant::now();
    for id in 0..options.pings {
        let sent = Instant::now();
        let response = server
            .post(Some(&pinger), &ping(id))
            .header("x-mcp-post-stream", "0")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let _ = response.bytes().await.unwrap();
        samples.durations.push(sent.elapsed());
    }
    samples.wall = start.elapsed();
    let calls_during = completed.load(Ordering::Relaxed) - calls_before;
    stop.store(true, Ordering::Relaxed);
    for loader in loaders {
        loader.await.unwrap();
    }
    samples.print();
    println!(
        "\n(ping under load: the other sessions completed {calls_during} codex calls during the {:.0} ms of pings)",
        samples.wall.as_secs_f64() * 1000.0
    );
}
