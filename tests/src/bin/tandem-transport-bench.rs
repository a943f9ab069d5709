//! Benchmark of the app-server's transports against the mock model over real HTTP.
//!
//! ```sh
//! cargo build --profile fuzz --bins -p app-server -p tandem-tests
//! target/fuzz/tandem-transport-bench [--deltas 20000] [--runs 5] [--connections 100]
//! ```
//!
//! 1. The same streamed turn over stdio, `unix://` and `ws://`: deltas per second as the client
//!    receives them, and server CPU per delta (from `/proc/<pid>/task/*/schedstat`).
//! 2. `--connections` connections on one `unix://` server (what the daemon is), each running a
//!    200-delta turn at once: p50 and p99 turn time, and whether every delta arrived.
//! 3. Memory per idle, initialized connection (server RSS growth over 200 connections).
//! 4. Spawn to first response: `app-server proxy --jsonl` to a running server, against a fresh
//!    `app-server` on stdio.

#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a benchmark tool prints and fails loudly"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tandem_tests::listener::{Listener, WsClient};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config, tandem_binary};

struct Options {
    deltas: usize,
    runs: usize,
    connections: usize,
}

fn parse_options() -> Options {
    let mut options = Options {
        deltas: 20_000,
        runs: 5,
        connections: 100,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|value| value.parse().ok());
        match (arg.as_str(), value) {
            ("--deltas", Some(value)) => options.deltas = value,
            ("--runs", Some(value)) => options.runs = value,
            ("--connections", Some(value)) => options.connections = value,
            _ => panic!("usage: tandem-transport-bench [--deltas N] [--runs N] [--connections N]"),
        }
    }
    options
}

/// CPU time `pid` has used so far, all threads, in nanoseconds.
fn cpu_time(pid: u32) -> Duration {
    let mut total = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let stats = std::fs::read_to_string(task.unwrap().path().join("schedstat")).unwrap();
        total += stats
            .split_whitespace()
            .next()
            .unwrap()
            .parse::<u64>()
            .unwrap();
    }
    Duration::from_nanos(total)
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap()
}

fn words(count: usize) -> Vec<String> {
    (0..count)
        .map(|index| format!("word{} ", index % 1000))
        .collect()
}

fn percentile(values: &mut [Duration], percent: usize) -> Duration {
    values.sort();
    values[(values.len() * percent / 100).min(values.len() - 1)]
}

/// The two clients the turn loop drives the same way.
enum Client {
    Stdio(TestServer),
    Socket(WsClient),
}

impl Client {
    async fn request(&mut self, method: &str, params: Value) -> Value {
        match self {
            Client::Stdio(server) => server.request(method, params).await.unwrap(),
            Client::Socket(client) => client.request(method, params).await.unwrap(),
        }
    }

    async fn next_message(&mut self) -> Value {
        match self {
            Client::Stdio(server) => server.next_message().await,
            Client::Socket(client) => client.next_message().await,
        }
    }

    async fn initialize(&mut self) {
        match self {
            Client::Stdio(server) => {
                server.initialize().await;
            }
            Client::Socket(client) => {
                client.initialize().await;
            }
        }
    }

    /// Runs one turn; returns the streaming time (first delta to `turn/completed`) and the
    /// deltas received.
    async fn turn(&mut self, thread_id: &str) -> (Duration, usize) {
        self.request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "bench"}]}),
        )
        .await;
        let mut first = None;
        let mut deltas = 0;
        loop {
            let message = self.next_message().await;
            match message["method"].as_str() {
                Some("item/agentMessage/delta") => {
                    deltas += 1;
                    first.get_or_insert_with(Instant::now);
                }
                Some("turn/completed") => {
                    return (
                        first.map_or(Duration::ZERO, |first| first.elapsed()),
                        deltas,
                    );
                }
                _ => {}
            }
        }
    }
}

async fn thread(client: &mut Client, cwd: &Path) -> String {
    let started = client
        .request("thread/start", json!({"cwd": cwd.to_str().unwrap()}))
        .await;
    started["thread"]["id"].as_str().unwrap().to_string()
}

/// Part 1: one transport, `runs` turns of `deltas` deltas each.
async fn streaming(model: &MockModel, transport: &str, options: &Options, cwd: &Path) {
    let config = mock_config(&model.base_url());
    let socket_dir = tempfile::tempdir().unwrap();
    let (mut client, pid, _listener) = match transport {
        "stdio" => {
            let server = TestServer::spawn(&config).await;
            let pid = server.child.id().unwrap();
            (Client::Stdio(server), pid, None)
        }
        _ => {
            let listen = match transport {
                "unix" => format!("unix://{}/s.sock", socket_dir.path().display()),
                _ => "ws://127.0.0.1:0".to_string(),
            };
            let listener = Listener::spawn(&config, &listen, &["--ws-auth", "none"], None).await;
            let pid = listener.child.id().unwrap();
            let client = listener.connect(&[]).await.unwrap();
            (Client::Socket(client), pid, Some(listener))
        }
    };
    client.initialize().await;
    let thread_id = thread(&mut client, cwd).await;
    let mut rates = Vec::new();
    let mut cpu_per_delta = Vec::new();
    for _ in 0..options.runs {
        model.push(MockResponse::sse(responses_text(
            "msg_bench",
            &words(options.deltas),
        )));
        let before = cpu_time(pid);
        let (streaming, deltas) = client.turn(&thread_id).await;
        let cpu = cpu_time(pid) - before;
        assert_eq!(deltas, options.deltas, "every delta arrives");
        rates.push(deltas as f64 / streaming.as_secs_f64());
        cpu_per_delta.push(cpu.as_secs_f64() * 1e6 / deltas as f64);
    }
    rates.sort_by(f64::total_cmp);
    cpu_per_delta.sort_by(f64::total_cmp);
    let middle = rates.len() / 2;
    println!(
        "{transport:>5}: {:>9.0} deltas/s (min {:.0}, max {:.0}); server CPU {:.2} µs/delta (min {:.2}, max {:.2})",
        rates[middle],
        rates[0],
        rates[rates.len() - 1],
        cpu_per_delta[middle],
        cpu_per_delta[0],
        cpu_per_delta[cpu_per_delta.len() - 1],
    );
}

/// Part 2: many connections, each running a 200-delta turn at once.
async fn many_connections(model: &MockModel, options: &Options, cwd: &Path) {
    let config = mock_config(&model.base_url());
    let socket_dir = tempfile::tempdir().unwrap();
    let listen = format!("unix://{}/s.sock", socket_dir.path().display());
    let listener = Listener::spawn(&config, &listen, &[], None).await;
    let mut clients = Vec::new();
    for _ in 0..options.connections {
        let mut client = Client::Socket(listener.connect(&[]).await.unwrap());
        client.initialize().await;
        let thread_id = thread(&mut client, cwd).await;
        clients.push((client, thread_id));
    }
    for _ in 0..options.connections {
        model.push(MockResponse::sse(responses_text("msg_bench", &words(200))));
    }
    let started = Instant::now();
    let turns = clients
        .into_iter()
        .map(|(mut client, thread_id)| async move {
            let begun = Instant::now();
            let (_, deltas) = client.turn(&thread_id).await;
            (begun.elapsed(), deltas)
        });
    let results = futures::future::join_all(turns).await;
    let wall = started.elapsed();
    let complete = results.iter().all(|(_, deltas)| *deltas == 200);
    let mut times: Vec<Duration> = results.into_iter().map(|(time, _)| time).collect();
    println!(
        "{} connections × 200-delta turns on one unix:// server: p50 {:.1} ms, p99 {:.1} ms, all in {:.1} ms; every delta delivered: {complete}",
        options.connections,
        percentile(&mut times, 50).as_secs_f64() * 1e3,
        percentile(&mut times, 99).as_secs_f64() * 1e3,
        wall.as_secs_f64() * 1e3,
    );
}

/// Part 3: server RSS growth per idle, initialized connection.
async fn idle_memory(model: &MockModel) {
    let config = mock_config(&model.base_url());
    let socket_dir = tempfile::tempdir().unwrap();
    let listen = format!("unix://{}/s.sock", socket_dir.path().display());
    let listener = Listener::spawn(&config, &listen, &[], None).await;
    let pid = listener.child.id().unwrap();
    let mut warm = listener.connect(&[]).await.unwrap();
    warm.initialize().await;
    let before = rss_kib(pid);
    let count = 200;
    let mut clients = Vec::new();
    for _ in 0..count {
        let mut client = listener.connect(&[]).await.unwrap();
        client.initialize().await;
        clients.push(client);
    }
    let after = rss_kib(pid);
    println!(
        "memory per idle connection: {:.1} KiB (RSS {before} → {after} KiB over {count} connections)",
        after.saturating_sub(before) as f64 / count as f64
    );
}

/// Part 4: spawn to the first response (`initialize`), proxy against a fresh server.
async fn first_response(model: &MockModel, runs: usize) {
    let config = mock_config(&model.base_url());
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), &config).unwrap();
    let socket = home
        .path()
        .join("app-server-control/app-server-control.sock");
    let listener = Listener::spawn(&config, "unix://", &[], Some(home.path().to_path_buf())).await;
    assert_eq!(listener.socket_path(), socket);
    let mut proxy_times = Vec::new();
    let mut fresh_times = Vec::new();
    for _ in 0..runs {
        proxy_times.push(
            time_to_initialize(&config, vec!["proxy".into(), "--jsonl".into()], home.path()).await,
        );
        let fresh_home = tempfile::tempdir().unwrap();
        fresh_times.push(time_to_initialize(&config, Vec::new(), fresh_home.path()).await);
    }
    println!(
        "spawn to first response: proxy --jsonl to a running server {:.1} ms (p50), fresh app-server {:.1} ms (p50)",
        percentile(&mut proxy_times, 50).as_secs_f64() * 1e3,
        percentile(&mut fresh_times, 50).as_secs_f64() * 1e3,
    );
}

async fn time_to_initialize(config: &str, args: Vec<String>, home: &Path) -> Duration {
    let started = Instant::now();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config.to_string(),
        args,
        home: Some(PathBuf::from(home)),
        cwd: None,
    })
    .await;
    server.initialize().await;
    let elapsed = started.elapsed();
    server.shutdown().await;
    elapsed
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    println!("server: {}", tandem_binary().display());
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    println!(
        "1. one turn of {} deltas, {} runs per transport (median, min, max):",
        options.deltas, options.runs
    );
    for transport in ["stdio", "unix", "ws"] {
        streaming(&model, transport, &options, workspace.path()).await;
    }
    println!("2. many connections:");
    many_connections(&model, &options, workspace.path()).await;
    println!("3. idle connections:");
    idle_memory(&model).await;
    println!("4. start-up:");
    first_response(&model, options.runs.max(5)).await;
}
