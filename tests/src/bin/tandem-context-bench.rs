//! Figures for project instructions and compaction, through the real binary and the mock
//! model over real HTTP.
//!
//! ```sh
//! cargo build --release --bins
//! TANDEM_BIN=target/release/tandem target/release/tandem-context-bench [--runs 200] [--turns 200]
//! ```
//!
//! - AGENTS.md: `config/read {cwd}` round trips (the server discovers and loads the files of
//!   `cwd` for each) on the deepest of 50 nested directories that each hold an AGENTS.md, next
//!   to the same request on a directory outside any repository with no AGENTS.md; the
//!   difference is the cost of discovery and loading.
//! - Compaction: a thread of `--turns` turns (about 250 estimated tokens each) with
//!   `model_auto_compact_token_limit = 8000`: the estimated tokens of each request before and
//!   after every compaction, how often it compacted, and the median latency of turns that
//!   compacted against turns that did not (the mock answers at once, so the difference is the
//!   engine's own cost plus one extra request).

#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a benchmark tool prints and fails loudly"
)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

const DEPTH: usize = 50;
const LIMIT_TOKENS: u64 = 8000;

#[tokio::main]
async fn main() {
    assert!(
        std::env::var_os("TANDEM_BIN").is_some(),
        "set TANDEM_BIN to the tandem binary to measure (for example target/release/tandem)"
    );
    let mut runs = 200;
    let mut turns = 200;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|value| value.parse().ok());
        match (arg.as_str(), value) {
            ("--runs", Some(value)) => runs = value,
            ("--turns", Some(value)) => turns = value,
            _ => panic!("usage: tandem-context-bench [--runs N] [--turns N]"),
        }
    }
    println!("load average: {}", load_average());
    agents_md(runs).await;
    compaction(turns).await;
    println!("load average: {}", load_average());
}

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

async fn agents_md(runs: usize) {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let mut deepest = repo.clone();
    for level in 0..DEPTH {
        deepest = deepest.join(format!("d{level}"));
        std::fs::create_dir_all(&deepest).unwrap();
        std::fs::write(
            deepest.join("AGENTS.md"),
            format!("Level {level}: keep functions short and tests deterministic.\n"),
        )
        .unwrap();
    }
    let bare = work.path().join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let loaded = server
        .request("config/read", json!({"cwd": deepest.to_string_lossy()}))
        .await
        .unwrap();
    let sources = loaded["instructionSources"].as_array().map_or(0, Vec::len);
    assert_eq!(sources, DEPTH, "expected one AGENTS.md per level");
    // Interleaved pairs, so that load on the machine hits both sides alike; the median of the
    // differences is the cost of discovery and loading.
    let mut with_files = Vec::with_capacity(runs);
    let mut without = Vec::with_capacity(runs);
    let mut differences = Vec::with_capacity(runs);
    for _ in 0..runs {
        let deep = timed_request(&mut server, &deepest).await;
        let plain = timed_request(&mut server, &bare).await;
        with_files.push(deep);
        without.push(plain);
        differences.push(deep.as_secs_f64() - plain.as_secs_f64());
    }
    differences.sort_by(f64::total_cmp);
    println!(
        "agents_md: {DEPTH} nested directories, {sources} files: config/read median {:.3} ms (min {:.3}); without AGENTS.md {:.3} ms (min {:.3}); discovery+load = median paired difference {:.3} ms ({runs} pairs)",
        millis(median(&mut with_files)),
        millis(with_files[0]),
        millis(median(&mut without)),
        millis(without[0]),
        differences[differences.len() / 2] * 1000.0,
    );
}

async fn timed_request(server: &mut TestServer, cwd: &Path) -> Duration {
    let started = Instant::now();
    server
        .request("config/read", json!({"cwd": cwd.to_string_lossy()}))
        .await
        .unwrap();
    started.elapsed()
}

async fn compaction(turns: usize) {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let config = format!(
        "model_auto_compact_token_limit = {LIMIT_TOKENS}\n{}",
        mock_config(&model.base_url())
    );
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config,
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    let started = server
        .request(
            "thread/start",
            json!({"cwd": work.path().to_string_lossy()}),
        )
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    let filler = "lorem ipsum dolor sit amet ".repeat(18);
    let mut compacting = Vec::new();
    let mut plain = Vec::new();
    let mut peaks = Vec::new();
    let mut lows = Vec::new();
    let mut largest_without = 0;
    let mut first_request = 0;
    for index in 0..turns {
        // Two answers queued (all alike): the summary, if the turn compacts, and the answer;
        // what a turn leaves queued serves the next one.
        while model.pending_responses() < 2 {
            model.push(MockResponse::sse(responses_text(
                "msg_a",
                &[format!("answer {index} {filler}")],
            )));
        }
        let before = model.requests().len();
        let started = Instant::now();
        server
            .request(
                "turn/start",
                json!({"threadId": thread_id, "input": [{"type": "text", "text": format!("question {index} {filler}")}]}),
            )
            .await
            .unwrap();
        let messages = server.until_turn_completed().await;
        let elapsed = started.elapsed();
        let compacted = messages.iter().any(|message| {
            message["method"] == "item/completed"
                && message["params"]["item"]["type"] == "contextCompaction"
        });
        let requests = model.requests();
        let sent = &requests[before..];
        if index == 0 {
            first_request = estimate(&sent[0]);
        }
        if compacted {
            // The summary request carries the history before compaction, the next one after.
            peaks.push(estimate(&sent[0]));
            lows.push(estimate(&sent[1]));
            compacting.push(elapsed);
        } else {
            largest_without = largest_without.max(estimate(&sent[0]));
            plain.push(elapsed);
        }
    }
    let average = |values: &[u64]| values.iter().sum::<u64>() / values.len().max(1) as u64;
    println!(
        "compaction: {turns} turns, limit {LIMIT_TOKENS} estimated tokens, first request {first_request}: {} compactions; request before compaction {} tokens on average, after {} (largest request that did not compact: {largest_without}; without compaction the last request would carry about {})",
        compacting.len(),
        average(&peaks),
        average(&lows),
        first_request + (turns as u64 - 1) * turn_tokens(&filler),
    );
    println!(
        "compaction latency: median turn {:.3} ms without compaction ({} turns), {:.3} ms with ({} turns): +{:.3} ms",
        millis(median(&mut plain)),
        plain.len(),
        millis(median(&mut compacting)),
        compacting.len(),
        millis(median(&mut compacting).saturating_sub(median(&mut plain))),
    );
}

/// Estimated tokens one question and its answer add to the history.
fn turn_tokens(filler: &str) -> u64 {
    (2 * (filler.len() + 60)) as u64 / 4
}

/// Estimated tokens of a model request: four bytes of JSON per token, as the server counts.
fn estimate(request: &Value) -> u64 {
    let bytes = request["instructions"].as_str().map_or(0, str::len)
        + request["input"].to_string().len()
        + request["tools"].to_string().len();
    bytes as u64 / 4
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
