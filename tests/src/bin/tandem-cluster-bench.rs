//! Benchmark of distributed `tandem mcp-server --http --redis` nodes against one node in
//! memory, on real `redis-server` and `nginx` (round robin, no affinity) and the mock model:
//!
//! - `codex` calls per second and p50/p99 call latency from `--sessions` concurrent sessions,
//!   one in-memory node vs three nodes behind nginx;
//! - the bus latency per event (append in Redis → delivery to a GET stream, from the nodes'
//!   `/metrics` histograms);
//! - memory per idle session on the nodes and in Redis;
//! - `--check-sessions` sessions through the front with `--sessions` turns at a time, every
//!   event counted on the client: errors, lost and duplicated events.
//!
//! ```sh
//! cargo build --release -p app-server --bin tandem && cargo build -p tandem-tests --bins
//! target/debug/tandem-cluster-bench --server target/release/tandem
//! ```

#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a benchmark tool prints and fails loudly"
)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use tandem_tests::cluster::{Endpoint, Nginx, Redis, tool_call};
use tandem_tests::mcp::{McpHttp, SseReader, home_with};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text, token_deltas};
use tandem_tests::server::mock_config;

const DELTAS: usize = 16;

struct Options {
    binary: PathBuf,
    sessions: usize,
    calls_per_session: usize,
    idle_sessions: usize,
    check_sessions: usize,
}

fn parse_options() -> Options {
    let mut options = Options {
        binary: std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|dir| dir.join("tandem")))
            .unwrap_or_default(),
        sessions: 100,
        calls_per_session: 5,
        idle_sessions: 1000,
        check_sessions: 1000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number =
            |default: usize| args.next().and_then(|n| n.parse().ok()).unwrap_or(default);
        match arg.as_str() {
            "--sessions" => options.sessions = number(options.sessions).max(1),
            "--calls" => options.calls_per_session = number(options.calls_per_session).max(1),
            "--idle-sessions" => options.idle_sessions = number(options.idle_sessions).max(1),
            "--check-sessions" => options.check_sessions = number(options.check_sessions),
            "--server" => options.binary = args.next().map(PathBuf::from).unwrap_or_default(),
            _ => {
                println!(
                    "usage: tandem-cluster-bench [--server PATH] [--sessions N] [--calls N] [--idle-sessions N] [--check-sessions N]"
                );
                std::process::exit(2);
            }
        }
    }
    options
}

fn push_answers(model: &MockModel, count: usize) {
    model.push_all(
        (0..count).map(|_| MockResponse::sse(responses_text("msg", &token_deltas(DELTAS)))),
    );
}

async fn spawn_node(options: &Options, model: &MockModel, redis: Option<&Redis>) -> McpHttp {
    let home = home_with(&mock_config(&model.base_url()));
    let path = home.path().to_path_buf();
    let mut args = vec!["--session-ttl", "1h"];
    if let Some(redis) = redis {
        args.extend_from_slice(&["--redis", &redis.url]);
    }
    McpHttp::spawn_binary(&options.binary, path, Some(home), &args, "error").await
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

/// `--sessions` sessions at once, each making `--calls` streamed `codex` calls in a row.
async fn calls(options: &Options, name: &str, endpoint: &Endpoint) {
    let mut sessions = Vec::new();
    for _ in 0..options.sessions {
        sessions.push(endpoint.initialize(json!({})).await);
    }
    let start = Instant::now();
    let mut tasks = Vec::new();
    for session in sessions {
        let endpoint = endpoint.clone();
        let count = options.calls_per_session;
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = Vec::new();
            for id in 0..count {
                let started = Instant::now();
                let request = tool_call(id as i64 + 1, "codex", json!({"prompt": "Hi."}));
                let response = endpoint.post(&session, &request).send().await.unwrap();
                if response.status() != 200 {
                    errors.push(response.status().as_u16());
                    continue;
                }
                let events = SseReader::new(response).rest().await;
                assert!(events.last().unwrap().data.contains("\"result\""));
                latencies.push(started.elapsed());
            }
            (latencies, errors)
        }));
    }
    let mut latencies = Vec::new();
    let mut errors = Vec::new();
    for task in tasks {
        let (done, failed) = task.await.unwrap();
        latencies.extend(done);
        errors.extend(failed);
    }
    let wall = start.elapsed();
    latencies.sort();
    let percentile = |p: f64| {
        latencies[((latencies.len() as f64 - 1.0) * p).round() as usize].as_secs_f64() * 1000.0
    };
    println!(
        "| {name} | {} ({} failed: {errors:?}) | {:.0} | {:.1} | {:.1} |",
        latencies.len(),
        errors.len(),
        latencies.len() as f64 / wall.as_secs_f64(),
        percentile(0.5),
        percentile(0.99)
    );
}

/// The median of a Prometheus histogram summed over `texts`, interpolated in its bucket.
fn histogram_median(texts: &[String], name: &str) -> Option<(f64, u64)> {
    let mut buckets: Vec<(f64, f64)> = Vec::new();
    for text in texts {
        for line in text.lines() {
            let Some(rest) = line.strip_prefix(&format!("{name}_bucket{{le=\"")) else {
                continue;
            };
            let (bound, count) = rest.split_once("\"} ")?;
            let bound = if bound == "+Inf" {
                f64::INFINITY
            } else {
                bound.parse().ok()?
            };
            let count: f64 = count.trim().parse().ok()?;
            match buckets.iter_mut().find(|(existing, _)| *existing == bound) {
                Some(entry) => entry.1 += count,
                None => buckets.push((bound, count)),
            }
        }
    }
    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total = buckets.last()?.1;
    let half = total / 2.0;
    let mut lower = (0.0, 0.0);
    for (bound, count) in &buckets {
        if *count >= half {
            let fraction = (half - lower.1) / (count - lower.1).max(1.0);
            let upper = if bound.is_finite() {
                *bound
            } else {
                lower.0 * 2.0
            };
            return Some((lower.0 + (upper - lower.0) * fraction, total as u64));
        }
        lower = (*bound, *count);
    }
    None
}

async fn redis_used_memory(redis: &Redis) -> u64 {
    redis
        .cli(&["INFO", "memory"])
        .await
        .lines()
        .find_map(|line| line.strip_prefix("used_memory:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0)
}

/// Opens `--idle-sessions` sessions through `endpoint`; node RSS (and Redis memory) per session.
async fn idle(
    options: &Options,
    name: &str,
    endpoint: &Endpoint,
    nodes: &[&McpHttp],
    redis: Option<&Redis>,
) {
    let pids: Vec<u32> = nodes.iter().map(|node| node.child.id().unwrap()).collect();
    let rss = || pids.iter().map(|pid| rss_kib(*pid)).sum::<u64>();
    let before = rss();
    let redis_before = match redis {
        Some(redis) => redis_used_memory(redis).await,
        None => 0,
    };
    for _ in 0..options.idle_sessions {
        endpoint.initialize(json!({})).await;
    }
    let per_session = rss().saturating_sub(before) as f64 / options.idle_sessions as f64;
    let redis_note = match redis {
        Some(redis) => format!(
            ", Redis {:.0} bytes per session",
            redis_used_memory(redis).await.saturating_sub(redis_before) as f64
                / options.idle_sessions as f64
        ),
        None => String::new(),
    };
    println!(
        "{name}: {} idle sessions, node RSS {:.1} KiB per session{redis_note}",
        options.idle_sessions, per_session
    );
}

/// `--check-sessions` sessions through the front, each with a GET stream and one JSON-mode
/// call (its events on the GET stream), `--sessions` at a time; every event counted.
async fn check(options: &Options, front: &Endpoint) {
    let limit = Arc::new(tokio::sync::Semaphore::new(options.sessions));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..options.check_sessions {
        let front = front.clone();
        let limit = limit.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = limit.acquire().await.unwrap();
            let session = front.initialize(json!({})).await;
            let get = front.get(&session, None).await;
            if get.status() != 200 {
                return (1, 0, 0);
            }
            let mut stream = SseReader::new(get);
            let reply = front
                .post_json(
                    &session,
                    &tool_call(1, "codex", json!({"prompt": "Count."})),
                )
                .send()
                .await
                .unwrap();
            if reply.status() != 200 {
                return (1, 0, 0);
            }
            let reply: Value = reply.json().await.unwrap();
            let mut errors = usize::from(reply["result"]["isError"] != false);
            let (mut deltas, mut expected_seq, mut bad_ids) = (0, 1, 0);
            loop {
                let event = stream.next().await.expect("GET stream open");
                if event.id.as_deref() != Some(format!("0/{expected_seq}").as_str()) {
                    bad_ids += 1;
                }
                expected_seq += 1;
                let message = event.json();
                if message.to_string().contains("agent_message_content_delta") {
                    deltas += 1;
                }
                if message["params"]["msg"]["type"] == "task_complete" {
                    break;
                }
            }
            if deltas != DELTAS {
                errors += 1;
            }
            (errors, deltas.abs_diff(DELTAS), bad_ids)
        }));
    }
    let (mut errors, mut lost_or_extra, mut out_of_order) = (0, 0, 0);
    for task in tasks {
        let (e, l, o) = task.await.unwrap();
        errors += e;
        lost_or_extra += l;
        out_of_order += o;
    }
    println!(
        "{} sessions through nginx, {} turns at a time, in {:.1} s: {errors} errors, {lost_or_extra} lost or duplicated deltas, {out_of_order} out-of-sequence event ids",
        options.check_sessions,
        options.sessions,
        start.elapsed().as_secs_f64()
    );
}

/// The machine's load averages (1, 5, 15 minutes), printed next to the figures.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_string())
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    println!("load average at start: {}", load_average());
    let model = MockModel::start().await;
    let total_calls =
        2 * options.sessions * options.calls_per_session + 2 * options.check_sessions + 16;
    push_answers(&model, total_calls);

    // Memory first, on fresh processes (later, freed allocations would hide the growth).
    let single = spawn_node(&options, &model, None).await;
    let single_endpoint = Endpoint::of(&single);
    idle(
        &options,
        "1 node, in memory",
        &single_endpoint,
        &[&single],
        None,
    )
    .await;
    let redis = Redis::start().await;
    let mut nodes = Vec::new();
    for _ in 0..3 {
        nodes.push(spawn_node(&options, &model, Some(&redis)).await);
    }
    let upstreams: Vec<String> = nodes
        .iter()
        .map(|node| {
            node.url
                .trim_start_matches("http://")
                .trim_end_matches("/mcp")
                .to_string()
        })
        .collect();
    let nginx = Nginx::start(&upstreams).await;
    let front = Endpoint::new(&nginx.url);
    let node_refs: Vec<&McpHttp> = nodes.iter().collect();
    idle(
        &options,
        "3 nodes + Redis",
        &front,
        &node_refs,
        Some(&redis),
    )
    .await;

    println!("\n| setup | calls | calls/s | p50 ms | p99 ms |\n|---|---|---|---|---|");
    calls(&options, "1 node, in memory", &single_endpoint).await;
    calls(&options, "3 nodes + Redis behind nginx", &front).await;
    if options.check_sessions > 0 {
        check(&options, &front).await;
    }
    let mut texts = Vec::new();
    for node in &nodes {
        texts.push(Endpoint::of(node).metrics().await);
    }
    for (name, label) in [
        ("tandem_mcp_bus_publish_seconds", "append+publish in Redis"),
        (
            "tandem_mcp_bus_deliver_seconds",
            "append → delivery to the GET stream",
        ),
    ] {
        if let Some((median, count)) = histogram_median(&texts, name) {
            println!(
                "bus latency per event, {label}: p50 {:.3} ms over {count} events",
                median * 1000.0
            );
        }
    }
    println!("load average at the end: {}", load_average());
}
