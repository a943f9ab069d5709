//! Benchmark of an app-server implementation over stdio, against the mock model over real HTTP.
//!
//! ```sh
//! cargo build --release --bins
//! target/release/tandem-bench                                  # benchmarks target/release/tandem
//! target/release/tandem-bench --server "/path/to/other app-server" --threads 10000
//! ```
//!
//! The server command gets a fresh home (`TANDEM_HOME` and `CODEX_HOME`) whose `config.toml`
//! selects a `mock` provider at the mock model's URL, so any implementation of the protocol
//! that reads that config can be measured the same way.

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
    server: Vec<String>,
    threads: usize,
    runs: usize,
}

fn parse_options() -> Options {
    let mut args = std::env::args().skip(1);
    let default_server = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("tandem")))
        .map(|path| {
            vec![
                path.to_string_lossy().into_owned(),
                "app-server".to_string(),
            ]
        })
        .unwrap_or_default();
    let mut options = Options {
        server: default_server,
        threads: 10_000,
        runs: 20,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--server" => {
                options.server = args
                    .next()
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_string)
                    .collect()
            }
            "--threads" => {
                options.threads = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(options.threads)
            }
            "--runs" => {
                options.runs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(options.runs)
            }
            "--help" | "-h" => {
                println!("usage: tandem-bench [--server \"CMD ARGS\"] [--threads N] [--runs N]");
                std::process::exit(0);
            }
            other => {
                eprintln!("tandem-bench: unknown argument `{other}` (try --help)");
                std::process::exit(2);
            }
        }
    }
    options
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl Server {
    fn spawn(command: &[String], home: &Path) -> Server {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .env("TANDEM_HOME", home)
            .env("CODEX_HOME", home)
            .env("RUST_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn server");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().unwrap()).lines();
        Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    async fn send(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = format!(
            "{}\n",
            json!({"id": id, "method": method, "params": params})
        );
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
        id
    }

    async fn line(&mut self) -> String {
        tokio::time::timeout(Duration::from_secs(120), self.stdout.next_line())
            .await
            .expect("server timed out")
            .unwrap()
            .expect("server closed stdout")
    }

    async fn response(&mut self, id: i64) -> Value {
        let needle = format!("\"id\":{id},");
        let alternative = format!("\"id\":{id}}}");
        loop {
            let line = self.line().await;
            if (line.contains(&needle) || line.ends_with(&alternative))
                && !line.contains("\"method\"")
            {
                return serde_json::from_str(&line).unwrap();
            }
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params).await;
        self.response(id).await
    }

    async fn initialize(&mut self) {
        self.request(
            "initialize",
            json!({"clientInfo": {"name": "tandem_bench", "version": "0.1.0"}}),
        )
        .await;
    }

    /// Runs a turn; returns (time to turn/completed, time from first delta to completion, deltas).
    async fn turn(&mut self, thread_id: &str) -> (Duration, Duration, usize) {
        let started = Instant::now();
        self.send(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "bench"}]}),
        )
        .await;
        let mut first_delta = None;
        let mut deltas = 0;
        loop {
            let line = self.line().await;
            if line.starts_with("{\"method\":\"item/agentMessage/delta\"") {
                deltas += 1;
                first_delta.get_or_insert_with(Instant::now);
            } else if line.starts_with("{\"method\":\"turn/completed\"") {
                let total = started.elapsed();
                let streaming = first_delta.map_or(Duration::ZERO, |first| first.elapsed());
                return (total, streaming, deltas);
            }
        }
    }

    async fn thread(&mut self) -> String {
        let result = self.request("thread/start", json!({})).await;
        result["result"]["thread"]["id"]
            .as_str()
            .expect("thread id")
            .to_string()
    }

    /// CPU time the server process has used so far, all threads, from `/proc/<pid>/task/*/schedstat`
    /// (nanosecond resolution, unlike the 10 ms ticks of `/proc/<pid>/stat`).
    fn cpu_time(&self) -> Option<Duration> {
        let pid = self.child.id()?;
        let mut total = 0u64;
        for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
            let stats = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            total += stats.split_whitespace().next()?.parse::<u64>().ok()?;
        }
        Some(Duration::from_nanos(total))
    }

    fn rss_kib(&self) -> Option<u64> {
        let pid = self.child.id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches(" kB").trim().parse().ok())
    }

    async fn close(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

fn home_with_config(model: &MockModel) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    std::fs::write(path.join("config.toml"), mock_config(&model.base_url())).unwrap();
    (dir, path)
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn p95(values: &mut [Duration]) -> Duration {
    values.sort();
    values[(values.len() * 95 / 100).min(values.len() - 1)]
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

/// `count` deltas of one word each, drawn in turn from a 1,000-word vocabulary: an answer's
/// text repeats its words, as prose and code do (the server indexes each finished answer for
/// history search, and a 20,000-word answer with 20,000 distinct words would measure that
/// indexer's worst case instead of the delta path).
fn answer_deltas(count: usize) -> Vec<String> {
    (0..count)
        .map(|index| format!("word{} ", index % 1000))
        .collect()
}

/// Time for a bare HTTP client to consume the mock's response: the mock's own share of a turn.
async fn mock_only(model: &MockModel, deltas: usize) -> Duration {
    model.push(MockResponse::sse(responses_text(
        "msg_bench",
        &answer_deltas(deltas),
    )));
    let url = model.base_url();
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_string();
    let started = Instant::now();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let body = "{}";
    let request = format!(
        "POST /v1/responses HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut sink = Vec::new();
    tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut sink)
        .await
        .unwrap();
    started.elapsed()
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    if options.server.is_empty() {
        eprintln!("tandem-bench: no server command");
        std::process::exit(2);
    }
    println!("server: {}", options.server.join(" "));
    let model = MockModel::start().await;

    // 1. Spawn → initialize response, and RSS after initialize.
    let mut init_times = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..options.runs {
        let (_dir, home) = home_with_config(&model);
        let started = Instant::now();
        let mut server = Server::spawn(&options.server, &home);
        server.initialize().await;
        init_times.push(started.elapsed());
        if let Some(kib) = server.rss_kib() {
            rss.push(kib);
        }
        server.close().await;
    }
    rss.sort_unstable();
    // The floor: spawning `cat` and reading back one line, the same pipes and the same read.
    let mut cat_times = Vec::new();
    for _ in 0..options.runs {
        let (_dir, home) = home_with_config(&model);
        let started = Instant::now();
        let mut cat = Server::spawn(&["cat".to_string()], &home);
        cat.stdin.write_all(b"{}\n").await.unwrap();
        cat.stdin.flush().await.unwrap();
        let _ = cat.line().await;
        cat_times.push(started.elapsed());
        cat.close().await;
    }
    let init = median(&mut init_times);
    let floor = median(&mut cat_times);
    println!(
        "spawn -> initialize response: median {}, p95 {} (spawn cat -> one echoed line: median {}, ratio {:.1}x)",
        ms(init),
        ms(p95(&mut init_times)),
        ms(floor),
        init.as_secs_f64() / floor.as_secs_f64()
    );
    if let Some(kib) = rss.get(rss.len() / 2) {
        println!(
            "RSS after initialize: median {:.1} MiB",
            *kib as f64 / 1024.0
        );
    }

    // 2. A 200-delta turn, beyond the mock's own time.
    let (_dir, home) = home_with_config(&model);
    let mut server = Server::spawn(&options.server, &home);
    server.initialize().await;
    let thread_id = server.thread().await;
    let mut turn_times = Vec::new();
    let mut mock_times = Vec::new();
    for _ in 0..options.runs {
        mock_times.push(mock_only(&model, 200).await);
        model.push(MockResponse::sse(responses_text(
            "msg_bench",
            &answer_deltas(200),
        )));
        let (total, _, deltas) = server.turn(&thread_id).await;
        assert_eq!(deltas, 200);
        turn_times.push(total);
    }
    let turn = median(&mut turn_times);
    let mock = median(&mut mock_times);
    println!(
        "turn/start -> turn/completed, 200 deltas: median {} (mock alone {}, overhead {}), p95 {}",
        ms(turn),
        ms(mock),
        ms(turn.saturating_sub(mock)),
        ms(p95(&mut turn_times))
    );

    // 3. Delta throughput on a 20,000-delta answer, and the server's CPU per delta (the whole
    // turn's CPU divided by its deltas: an upper bound on the cost of one delta).
    let mut rates = Vec::new();
    let mut cpu_per_delta = Vec::new();
    for _ in 0..5 {
        model.push(MockResponse::sse(responses_text(
            "msg_bench",
            &answer_deltas(20_000),
        )));
        let thread_id = server.thread().await;
        let cpu_before = server.cpu_time();
        let (_, streaming, deltas) = server.turn(&thread_id).await;
        rates.push(deltas as f64 / streaming.as_secs_f64());
        if let (Some(before), Some(after)) = (cpu_before, server.cpu_time()) {
            cpu_per_delta.push(after.saturating_sub(before) / deltas as u32);
        }
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "delta notifications per second (20,000-delta answer): median {:.0}",
        rates[rates.len() / 2]
    );
    if !cpu_per_delta.is_empty() {
        let per_delta = median(&mut cpu_per_delta);
        println!(
            "server CPU per delta (whole turn CPU / 20,000): median {:.2} us ({:.0} deltas per CPU-second)",
            per_delta.as_secs_f64() * 1e6,
            1.0 / per_delta.as_secs_f64()
        );
    }
    server.close().await;

    // 4. thread/list first page at N stored threads (after a restart).
    let (_dir, home) = home_with_config(&model);
    let mut server = Server::spawn(&options.server, &home);
    server.initialize().await;
    let populate = Instant::now();
    for _ in 0..options.threads {
        model.push(MockResponse::sse(responses_text("msg_bench", &["ok"])));
        let thread_id = server.thread().await;
        server.turn(&thread_id).await;
    }
    println!(
        "populated {} threads in {:.1} s",
        options.threads,
        populate.elapsed().as_secs_f64()
    );
    server.close().await;
    let mut server = Server::spawn(&options.server, &home);
    server.initialize().await;
    let mut list_times = Vec::new();
    for _ in 0..options.runs {
        let started = Instant::now();
        let result = server.request("thread/list", json!({"limit": 50})).await;
        list_times.push(started.elapsed());
        assert_eq!(
            result["result"]["data"].as_array().map(Vec::len),
            Some(50.min(options.threads))
        );
    }
    println!(
        "thread/list first page (limit 50) at {} threads: median {}, p95 {}",
        options.threads,
        ms(median(&mut list_times)),
        ms(p95(&mut list_times))
    );
    server.close().await;
}
