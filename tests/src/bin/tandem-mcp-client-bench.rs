//! Benchmark of Tandem as an MCP client, against the npm reference "everything" server over
//! stdio and the mock model over real HTTP:
//!
//! - time from `thread/start` to the thread's MCP tools being available
//!   (`mcpServer/startupStatus/updated` `ready`), one fresh server per thread;
//! - per-call overhead of an MCP tool call (`mcp__everything__echo`) against a built-in tool
//!   (`update_plan`): turns of `--calls` calls each, turn time divided by the calls.
//!
//! ```sh
//! scripts/install-mcp-test-servers
//! cargo build --release --bins
//! TANDEM_BIN=target/release/tandem target/release/tandem-mcp-client-bench --threads 5 --calls 50
//! ```

#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a benchmark tool prints and fails loudly"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call, responses_text};
use tandem_tests::server::{TestServer, mock_config};

fn everything() -> PathBuf {
    let path = std::env::var_os("TANDEM_MCP_TEST_SERVERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-servers"))
        .join("node/node_modules/.bin/mcp-server-everything");
    assert!(
        path.exists(),
        "{} is missing; run scripts/install-mcp-test-servers",
        path.display()
    );
    path
}

fn argument(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|arg| arg == name)
        .and_then(|index| args.get(index + 1))
        .map(|value| value.parse().expect("a number"))
        .unwrap_or(default)
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

async fn thread(server: &mut TestServer) -> (String, Instant) {
    let started = Instant::now();
    let result = server.request("thread/start", json!({})).await.unwrap();
    (
        result["thread"]["id"].as_str().unwrap().to_string(),
        started,
    )
}

async fn ready(server: &mut TestServer, thread_id: &str) {
    let message = server
        .take_matching(|message| {
            message["method"] == "mcpServer/startupStatus/updated"
                && message["params"]["threadId"] == thread_id
                && message["params"]["status"] != "starting"
        })
        .await;
    assert_eq!(message["params"]["status"], "ready", "{message:#}");
}

/// One turn of `calls` calls to `tool`; returns its duration.
async fn turn(
    server: &mut TestServer,
    model: &MockModel,
    thread_id: &str,
    tool: &str,
    arguments: &Value,
    calls: usize,
) -> Duration {
    for index in 0..calls {
        model.push(MockResponse::sse(responses_function_call(
            &format!("call_{index}"),
            tool,
            &arguments.to_string(),
        )));
    }
    model.push(MockResponse::sse(responses_text("msg_done", &["done"])));
    let started = Instant::now();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "go"}]}),
        )
        .await
        .unwrap();
    server.notification("turn/completed").await;
    let elapsed = started.elapsed();
    server.drain_backlog();
    elapsed
}

#[tokio::main]
async fn main() {
    let threads = argument("--threads", 5);
    let calls = argument("--calls", 50);
    let model = MockModel::start().await;
    let config = format!(
        "{}\n[mcp_servers.everything]\ncommand = {:?}\nargs = [\"stdio\"]\nstartup_timeout_sec = 60\n",
        mock_config(&model.base_url()),
        everything().to_string_lossy()
    );
    let mut server = TestServer::spawn(&config).await;
    server.initialize().await;

    let mut startups = Vec::new();
    let mut thread_ids = Vec::new();
    for _ in 0..threads {
        let (thread_id, started) = thread(&mut server).await;
        ready(&mut server, &thread_id).await;
        startups.push(started.elapsed());
        thread_ids.push(thread_id);
    }
    println!(
        "thread/start -> MCP tools ready (everything, stdio): median {:.1} ms, min {:.1} ms, max {:.1} ms over {threads} threads",
        median(startups.clone()).as_secs_f64() * 1e3,
        startups.iter().min().unwrap().as_secs_f64() * 1e3,
        startups.iter().max().unwrap().as_secs_f64() * 1e3,
    );

    let thread_id = thread_ids[0].clone();
    let plan = json!({"plan": [{"step": "one", "status": "pending"}]});
    let echo = json!({"message": "hello"});
    // Warm-up, then alternate to share any drift.
    turn(&mut server, &model, &thread_id, "update_plan", &plan, 5).await;
    turn(
        &mut server,
        &model,
        &thread_id,
        "mcp__everything__echo",
        &echo,
        5,
    )
    .await;
    let mut builtin = Vec::new();
    let mut mcp = Vec::new();
    for _ in 0..3 {
        builtin.push(turn(&mut server, &model, &thread_id, "update_plan", &plan, calls).await);
        mcp.push(
            turn(
                &mut server,
                &model,
                &thread_id,
                "mcp__everything__echo",
                &echo,
                calls,
            )
            .await,
        );
    }
    let per_call = |turns: Vec<Duration>| median(turns).as_secs_f64() * 1e3 / calls as f64;
    let builtin_ms = per_call(builtin);
    let mcp_ms = per_call(mcp);
    println!(
        "per call (model round trip included), {calls} calls per turn, median of 3 turns: built-in update_plan {builtin_ms:.2} ms, mcp__everything__echo {mcp_ms:.2} ms, MCP overhead {:.2} ms",
        mcp_ms - builtin_ms
    );
    server.shutdown().await;
}
