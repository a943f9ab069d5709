//! Faults that used to strand a thread or a connection, against the real binary: hostile
//! `Retry-After` headers, a connection whose workers are all busy, and a client that stops
//! reading a command's unbounded output.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{READ_TIMEOUT, TestServer, mock_config, tandem_binary};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

use crate::common::utilities::{full_access, started_server};

fn text_input(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

/// `Retry-After` values that used to reach `Duration::from_secs_f64` and panic the turn task
/// (`1e20`, `99999999999999999999`), or that are not delays at all (`-1`, `NaN`). Each fails
/// its turn with the 429's error (retries are off), and the thread takes the next turn.
#[tokio::test]
async fn hostile_retry_after_headers_fail_the_turn_and_the_thread_goes_on() {
    let model = MockModel::start().await;
    let config = mock_config(&model.base_url())
        .replace("request_max_retries = 2", "request_max_retries = 0");
    let mut server = TestServer::spawn(&config).await;
    server.initialize().await;
    let result = server
        .request("thread/start", json!({"cwd": "/tmp/project"}))
        .await
        .unwrap();
    let thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    server.notification("thread/started").await;

    for value in ["1e20", "-1", "NaN", "99999999999999999999"] {
        model.push(MockResponse::error(429, "slow down").with_header("retry-after", value));
        let started = server
            .request(
                "turn/start",
                json!({"threadId": thread_id, "input": text_input(value)}),
            )
            .await
            .unwrap();
        let messages = server.until_turn_completed().await;
        let completed = messages.last().unwrap();
        assert_eq!(
            completed["params"]["turn"]["id"], started["turn"]["id"],
            "Retry-After {value}: turn/start joined a dead turn"
        );
        assert_eq!(
            completed["params"]["turn"]["status"], "failed",
            "Retry-After {value}"
        );
        let error = messages
            .iter()
            .find(|message| message["method"] == "error")
            .unwrap_or_else(|| panic!("Retry-After {value}: no error notification"));
        assert_eq!(error["params"]["willRetry"], false, "Retry-After {value}");
    }

    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["still ", "here"],
    )));
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("again")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    assert_eq!(model.request_count(), 5);
    server.shutdown().await;
}

/// 128 long-running `command/exec` requests hold every worker of the connection. The next
/// request is answered `-32001` at once, and `command/exec/terminate` still gets through.
#[tokio::test]
async fn a_connection_with_every_worker_busy_still_terminates_a_command() {
    const COMMANDS: usize = 128;
    let mut server = started_server("").await;
    let mut ids = Vec::new();
    for index in 0..COMMANDS {
        let id = server
            .send_request(
                "command/exec",
                json!({
                    "command": ["bash", "-c", "echo ready; exec sleep 300"],
                    "processId": format!("p{index}"),
                    "streamStdoutStderr": true,
                    "disableTimeout": true,
                    "sandboxPolicy": full_access(),
                }),
            )
            .await;
        ids.push(id);
    }
    // Every command has started once each has printed its line.
    let mut ready = std::collections::HashSet::new();
    while ready.len() < COMMANDS {
        let message = server.next_message().await;
        assert_eq!(message["method"], "command/exec/outputDelta", "{message}");
        ready.insert(message["params"]["processId"].as_str().unwrap().to_string());
    }

    let overloaded = server
        .request(
            "command/exec",
            json!({"command": ["true"], "sandboxPolicy": full_access()}),
        )
        .await;
    assert_eq!(
        overloaded.unwrap_err()["code"],
        -32001,
        "a request beyond the busy workers is refused at once"
    );

    let terminated = server
        .request("command/exec/terminate", json!({"processId": "p0"}))
        .await;
    assert_eq!(terminated, Ok(json!({})));
    let exec = server.response(ids[0]).await.unwrap();
    assert_eq!(exec["exitCode"], 137);
    assert_eq!(server.shutdown().await, Some(0));
}

/// A command prints 1 GiB with `disableOutputCap` while the client stops reading: the server
/// stalls the command instead of queueing its output, and its peak RSS stays within 32 MiB of
/// what it held once initialized until the client has read everything.
#[tokio::test]
async fn a_client_that_stops_reading_stalls_the_command_not_the_server_memory() {
    const OUTPUT_BYTES: u64 = 1 << 30;
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(tandem_binary())
        .arg("app-server")
        .env("TANDEM_HOME", home.path())
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::with_capacity(1 << 20, child.stdout.take().unwrap());
    let handshake = [
        json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "1"}}}),
        json!({"method": "initialized"}),
    ];
    for message in handshake {
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    stdin.flush().await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(READ_TIMEOUT, stdout.read_until(b'\n', &mut answer))
        .await
        .expect("initialize is answered")
        .unwrap();
    // The limit is on growth: what the server holds once initialized (its code and libraries,
    // which grow with the binary) plus 32 MiB, against 1 GiB of output.
    let baseline = peak_rss_kb(pid);
    let rss_limit_kb = baseline + 32 * 1024;
    let flood = json!({"id": 2, "method": "command/exec", "params": {
        "command": ["head", "-c", OUTPUT_BYTES.to_string(), "/dev/zero"],
        "processId": "flood",
        "streamStdoutStderr": true,
        "disableOutputCap": true,
        "disableTimeout": true,
        "sandboxPolicy": full_access(),
    }});
    stdin
        .write_all(format!("{flood}\n").as_bytes())
        .await
        .unwrap();
    stdin.flush().await.unwrap();

    // Not reading: wait until the server has stopped working (the output is stalled) or has
    // already grown past the limit (the output is piling up in memory).
    let cpu_ticks = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<u64> = stat
            .rsplit_once(") ")
            .map(|(_, rest)| {
                rest.split(' ')
                    .filter_map(|field| field.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        // utime and stime are fields 14 and 15 of stat; 11 and 12 of the numeric rest.
        fields.get(10).copied().unwrap_or(0) + fields.get(11).copied().unwrap_or(0)
    };
    let last_ticks = std::sync::Mutex::new((cpu_ticks(), Instant::now()));
    sample_until(
        || {
            if peak_rss_kb(pid) > rss_limit_kb {
                return true;
            }
            let ticks = cpu_ticks();
            let mut last = last_ticks.lock().unwrap();
            if ticks != last.0 {
                *last = (ticks, Instant::now());
                return false;
            }
            last.1.elapsed() > Duration::from_millis(500)
        },
        "the server to stall or to outgrow the limit",
    )
    .await;

    // Now read everything.
    let mut line = Vec::with_capacity(64 * 1024);
    let mut streamed_base64 = 0u64;
    let deadline = Instant::now() + Duration::from_secs(300);
    let response = loop {
        line.clear();
        let read = tokio::time::timeout(READ_TIMEOUT, stdout.read_until(b'\n', &mut line))
            .await
            .expect("output keeps coming")
            .unwrap();
        assert!(read > 0, "tandem closed stdout");
        assert!(Instant::now() < deadline, "1 GiB took more than 300 s");
        if memchr(&line[..line.len().min(100)], b"command/exec/outputDelta").is_some() {
            let start = memchr(&line, b"\"deltaBase64\":\"").unwrap() + 15;
            let end = start + memchr(&line[start..], b"\"").unwrap();
            streamed_base64 += (end - start) as u64;
            continue;
        }
        let message: Value = serde_json::from_slice(&line).unwrap();
        if message["id"] == 2 {
            break message;
        }
    };
    assert_eq!(response["result"]["exitCode"], 0, "{response}");
    // Base64 of 1 GiB in chunks: about 4/3 of it, padding aside.
    assert!(
        streamed_base64 >= OUTPUT_BYTES * 4 / 3,
        "only {streamed_base64} base64 bytes streamed"
    );
    let peak = peak_rss_kb(pid);
    eprintln!("server peak RSS while streaming 1 GiB: {peak} kB (after initialize: {baseline} kB)");
    assert!(
        peak < rss_limit_kb,
        "server peak RSS {peak} kB exceeds {rss_limit_kb} kB ({baseline} kB after initialize + 32 MiB)"
    );
    drop(stdin);
    let status = tokio::time::timeout(READ_TIMEOUT, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// `VmHWM` (peak resident set) of `pid` in kB.
fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Where `needle` first occurs in `haystack`.
fn memchr(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// Samples the server's counters until `condition` holds. This is a measurement, not a
/// synchronisation: "the producer has stalled" has no event of its own, so the test watches
/// the server's CPU time and peak RSS in `/proc`.
async fn sample_until(condition: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + READ_TIMEOUT;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
