//! Benchmark of what `review/start` costs before the model: the time from the request line
//! written to the review's model request arriving at the mock model, against the same for a
//! `turn/start`.
//!
//! ```sh
//! cargo build --bins
//! target/debug/tandem-review-bench                  # 30 reviews, 20 files of 40 changed lines
//! target/debug/tandem-review-bench --runs 100 --files 50 --sandbox danger-full-access
//! ```
//!
//! A git repository in a temporary directory holds `--files` committed files, each then
//! changed on 40 lines (a diff of about 7.5 KiB per file), plus one untracked file. A real
//! `tandem app-server` with the `--sandbox` mode (default `read-only`, whose git commands run
//! in the sandbox helper) serves one thread there; each run sends
//! `review/start` (uncommitted changes) and waits for its model request, which the mock model
//! holds until the time is taken, then lets the turn complete. The same is measured for
//! `turn/start` with a short text, whose request carries no diff. Runs are one at a time.

#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a benchmark tool prints and fails loudly"
)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer};

const ANSWER: &str = r#"{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Fine.","overall_confidence_score":0.9}"#;

fn git(repo: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=Bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(status.status.success(), "git {args:?}: {status:?}");
}

fn number(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|arg| arg == name)
        .and_then(|at| args.get(at + 1))
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// The median, 90th percentile and maximum of `samples`, in milliseconds.
fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let at = |fraction: f64| {
        let index = ((samples.len() - 1) as f64 * fraction).round() as usize;
        samples[index].as_secs_f64() * 1000.0
    };
    format!(
        "median {:.1} ms, p90 {:.1} ms, max {:.1} ms (n = {})",
        at(0.5),
        at(0.9),
        at(1.0),
        samples.len()
    )
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("usage: tandem-review-bench [--runs N] [--files N] [--sandbox MODE]");
        return;
    }
    let runs = number(&args, "--runs", 30);
    let files = number(&args, "--files", 20);
    let sandbox = args
        .iter()
        .position(|arg| arg == "--sandbox")
        .and_then(|at| args.get(at + 1))
        .map_or("read-only", String::as_str);

    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    let line = |file: usize, index: usize, tag: &str| {
        format!("fn item_{file}_{index}() -> u32 {{ {tag}{index} }}\n")
    };
    for file in 0..files {
        let text: String = (0..200).map(|index| line(file, index, "")).collect();
        std::fs::write(repo.path().join(format!("f{file}.rs")), text).unwrap();
    }
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "base"]);
    for file in 0..files {
        let text: String = (0..200)
            .map(|index| line(file, index, if index % 5 == 0 { "1 + " } else { "" }))
            .collect();
        std::fs::write(repo.path().join(format!("f{file}.rs")), text).unwrap();
    }
    std::fs::write(repo.path().join("notes.txt"), "an untracked file\n").unwrap();

    let model = MockModel::start().await;
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: format!(
            "model_provider = \"mock\"\nmodel = \"mock-model\"\napproval_policy = \"never\"\nsandbox_mode = \"{sandbox}\"\nmodel_context_window = 10000000\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"{}\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n",
            model.base_url(),
        ),
        args: Vec::new(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    let thread = server
        .request(
            "thread/start",
            json!({"cwd": repo.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();

    let mut measure = async |method: &str| {
        let params = if method == "review/start" {
            json!({"threadId": thread_id, "target": {"type": "uncommittedChanges"}})
        } else {
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "hello"}]})
        };
        let mut samples = Vec::with_capacity(runs);
        for _ in 0..runs {
            let (response, gate) = MockResponse::gated(responses_text("msg_bench", &[ANSWER]));
            model.push(response);
            let started = Instant::now();
            let id = server.send_request(method, params.clone()).await;
            assert!(
                gate.wait_requested(Duration::from_secs(60)).await,
                "no model request"
            );
            samples.push(started.elapsed());
            server.response(id).await.unwrap();
            gate.release_all();
            server.until_turn_completed().await;
        }
        samples
    };
    let turns = measure("turn/start").await;
    let reviews = measure("review/start").await;
    let request_bytes = model.requests().last().map_or(0, |request| {
        request["input"][1]["content"][0]["text"]
            .as_str()
            .map_or(0, str::len)
    });
    println!(
        "repository: {files} changed files and 1 untracked file; review request text {request_bytes} bytes"
    );
    println!("turn/start   request → model request: {}", summary(turns));
    println!("review/start request → model request: {}", summary(reviews));
}
