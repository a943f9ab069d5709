//! `tandem mcp-server --http` over real HTTP on 127.0.0.1: status codes, MCP sessions,
//! concurrency and isolation, TTL, DELETE, Host/Origin checks, bearer tokens and log
//! redaction. The SSE streams have their own file, `mcp_http_streams.rs`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, SseReader, home_with};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::mock_config;

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn status_codes_follow_the_streamable_http_table() {
    let server = McpHttp::spawn(&mock_config("http://127.0.0.1:9"), &[]).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});

    let no_session = server.post(None, &ping).send().await.unwrap();
    assert_eq!(no_session.status(), 400);
    let body: Value = no_session.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(body["id"], 1);
    let discover = server
        .post(
            None,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(discover.status(), 400);
    assert_eq!(
        discover.json::<Value>().await.unwrap()["error"]["code"],
        -32601
    );
    let unknown = server.post(Some("deadbeef"), &ping).send().await.unwrap();
    assert_eq!(unknown.status(), 404);

    let (session, result) = server.initialize("2025-06-18", json!({})).await;
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(session.len(), 64);
    assert!(session.bytes().all(|byte| byte.is_ascii_hexdigit()));
    let (other, _) = server.initialize("2025-06-18", json!({})).await;
    assert_ne!(session, other);

    let wrong_accept = server
        .post_accept(Some(&session), &ping, "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_accept.status(), 406);
    let wrong_type = server
        .client
        .post(&server.url)
        .header("content-type", "text/plain")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .body(ping.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_type.status(), 415);
    let bad_version = server
        .post(Some(&session), &ping)
        .header("mcp-protocol-version", "1999-01-01")
        .send()
        .await
        .unwrap();
    assert_eq!(bad_version.status(), 400);
    let other_version = server
        .post(Some(&session), &ping)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    // Another supported version is accepted: only unsupported ones are refused.
    assert_eq!(other_version.status(), 200);
    let parse_error = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(parse_error.status(), 400);
    assert_eq!(
        parse_error.json::<Value>().await.unwrap()["error"]["code"],
        -32700
    );
    let batch = server
        .post(Some(&session), &json!([ping]))
        .send()
        .await
        .unwrap();
    assert_eq!(batch.status(), 400);
    let put = server.client.put(&server.url).send().await.unwrap();
    assert_eq!(put.status(), 405);
    let get_without_accept = server
        .client
        .get(&server.url)
        .header("accept", "application/json")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(get_without_accept.status(), 406);

    // JSON when asked for, SSE by default.
    let json_ping = server
        .post(Some(&session), &ping)
        .header("mcp-protocol-version", "2025-06-18")
        .header("x-mcp-post-stream", "0")
        .send()
        .await
        .unwrap();
    assert_eq!(json_ping.status(), 200);
    assert_eq!(json_ping.headers()["content-type"], "application/json");
    assert_eq!(
        json_ping.json::<Value>().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}})
    );
    let sse_ping = server.post(Some(&session), &ping).send().await.unwrap();
    assert_eq!(sse_ping.headers()["content-type"], "text/event-stream");
    let events = SseReader::new(sse_ping).rest().await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].json()["result"], json!({}));
    // The second POST stream of the session (the ping with another version header was the first).
    assert_eq!(events[0].id.as_deref(), Some("2/1"));

    let notification = server
        .post(
            Some(&session),
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(notification.status(), 202);
    assert_eq!(notification.text().await.unwrap(), "");

    let delete = server
        .client
        .delete(&server.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), 204);
    let after = server.post(Some(&session), &ping).send().await.unwrap();
    assert_eq!(after.status(), 404);
    let delete_again = server
        .client
        .delete(&server.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(delete_again.status(), 404);
    // The other session is untouched.
    let still = server
        .post(Some(&other), &ping)
        .header("x-mcp-post-stream", "0")
        .send()
        .await
        .unwrap();
    assert_eq!(still.status(), 200);
}

#[tokio::test]
async fn sessions_run_concurrently_and_cannot_drive_each_others_threads() {
    let model = MockModel::start().await;
    let (slow, gate) = MockResponse::gated(responses_text("msg_a", &["from", " A"]));
    model.push(slow);
    model.push(MockResponse::sse(responses_text("msg_b", &["from", " B"])));
    model.push(MockResponse::sse(responses_text(
        "msg_c",
        &["B", " continues"],
    )));
    // A's stream stays silent while B runs: on a loaded machine that may take longer than the
    // usual idle timeout, whose retry would take B's answer from the mock.
    let config = mock_config(&model.base_url()).replace(
        "stream_idle_timeout_ms = 5000",
        "stream_idle_timeout_ms = 120000",
    );
    let server = McpHttp::spawn(&config, &[]).await;
    let (session_a, _) = server.initialize("2025-06-18", json!({})).await;
    let (session_b, _) = server.initialize("2025-06-18", json!({})).await;

    // A's call is held by the gate while B runs a whole call.
    let a_response = server
        .post(Some(&session_a), &call(1, "codex", json!({"prompt": "A?"})))
        .send()
        .await
        .unwrap();
    let mut a_stream = SseReader::new(a_response);
    let a_first = a_stream.next().await.unwrap().json();
    let thread_a = a_first["params"]["_meta"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();
    // B's call must not reach the model before A's has taken the gated response.
    assert!(gate.wait_requested(Duration::from_secs(30)).await);
    let b = server
        .post(Some(&session_b), &call(1, "codex", json!({"prompt": "B?"})))
        .header("x-mcp-post-stream", "0")
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(b["result"]["structuredContent"]["content"], "from B");

    // B cannot continue A's thread while A has it loaded.
    let stolen = server
        .post(
            Some(&session_b),
            &call(
                2,
                "codex-reply",
                json!({"threadId": thread_a, "prompt": "mine now"}),
            ),
        )
        .header("x-mcp-post-stream", "0")
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(stolen["result"]["isError"], true);
    assert_eq!(
        stolen["result"]["content"][0]["text"],
        format!(
            "thread {thread_a} is loaded by another MCP session; continue it there, or wait until that session ends"
        )
    );

    gate.release_all();
    let a_rest = a_stream.rest().await;
    let a_result = a_rest.last().unwrap().json();
    assert_eq!(a_result["result"]["structuredContent"]["content"], "from A");
    // Once A is gone, its stored thread can be continued from B.
    let delete = server
        .client
        .delete(&server.url)
        .header("mcp-session-id", &session_a)
        .send()
        .await
        .unwrap();
    // The 204 comes once the session is closed and its threads released.
    assert_eq!(delete.status(), 204);
    let continued = server
        .post(
            Some(&session_b),
            &call(
                3,
                "codex-reply",
                json!({"threadId": thread_a, "prompt": "B takes over"}),
            ),
        )
        .header("x-mcp-post-stream", "0")
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(
        continued["result"]["structuredContent"]["content"], "B continues",
        "{continued}"
    );
    let history = model.requests()[2]["input"].to_string();
    assert!(
        history.contains("A?") && history.contains("B takes over"),
        "{history}"
    );
}

/// How long a test waits for a session with a 1 s TTL to be reported expired.
const EXPIRY_WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn idle_sessions_expire_and_interrupt_their_turns() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["slow"]));
    model.push(response);
    let server = McpHttp::spawn(&mock_config(&model.base_url()), &["--session-ttl", "1s"]).await;
    let (idle, _) = server.initialize("2025-06-18", json!({})).await;
    let (busy, _) = server.initialize("2025-06-18", json!({})).await;
    // A JSON-mode call held by the gate: the open connection keeps `busy` alive.
    let client = server.client.clone();
    let post = server
        .post(Some(&busy), &call(1, "codex", json!({"prompt": "wait"})))
        .header("x-mcp-post-stream", "0");
    let held =
        tokio::spawn(async move { post.send().await.unwrap().json::<Value>().await.unwrap() });
    // A session made after the held call began: once it has expired, `busy` has gone longer
    // than the TTL since its last request, so only its open connection can have kept it.
    assert!(model.wait_for_requests(1, EXPIRY_WAIT).await);
    let (marker, _) = server.initialize("2025-06-18", json!({})).await;
    server.wait_for_session_expiry(&idle, EXPIRY_WAIT).await;
    server.wait_for_session_expiry(&marker, EXPIRY_WAIT).await;
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let expired = server.post(Some(&idle), &ping).send().await.unwrap();
    assert_eq!(expired.status(), 404);
    let alive = server
        .post(Some(&busy), &ping)
        .header("x-mcp-post-stream", "0")
        .send()
        .await
        .unwrap();
    assert_eq!(alive.status(), 200);
    gate.release_all();
    let result = held.await.unwrap();
    assert_eq!(result["result"]["structuredContent"]["content"], "slow");
    drop(client);

    // Without a connection, the session and its running turn go away.
    let (response, gate) = MockResponse::gated(responses_text("msg_2", &["never"]));
    model.push(response);
    let (abandoned, _) = server.initialize("2025-06-18", json!({})).await;
    let call_response = server
        .post(
            Some(&abandoned),
            &call(1, "codex", json!({"prompt": "then leave"})),
        )
        .send()
        .await
        .unwrap();
    let mut stream = SseReader::new(call_response);
    let first = stream.next().await.unwrap().json();
    let thread_id = first["params"]["_meta"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();
    drop(stream);
    server
        .wait_for_session_expiry(&abandoned, EXPIRY_WAIT)
        .await;
    let gone = server.post(Some(&abandoned), &ping).send().await.unwrap();
    assert_eq!(gone.status(), 404);
    // The interrupted turn was recorded in the thread's rollout.
    let rollout = find_rollout(&server.home, &thread_id);
    assert!(rollout.contains("interrupted"), "{rollout}");
    drop(gate);
}

fn find_rollout(home: &std::path::Path, thread_id: &str) -> String {
    let mut pending = vec![home.join("sessions")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.to_string_lossy().contains(thread_id) {
                return std::fs::read_to_string(path).unwrap();
            }
        }
    }
    panic!("no rollout for {thread_id}");
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused() {
    let server = McpHttp::spawn(
        &mock_config("http://127.0.0.1:9"),
        &["--allowed-origin", "https://app.example.com"],
    )
    .await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    for (header, value, status) in [
        ("origin", "http://evil.example.com", 403),
        ("host", "evil.example.com", 403),
        ("origin", "http://localhost:5173", 200),
        ("origin", "https://app.example.com", 200),
        ("host", "localhost:1234", 200),
    ] {
        let response = server
            .post_accept(None, &initialize, "application/json")
            .header(header, value)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status, "{header}: {value}");
        if status == 403 {
            assert!(response.headers().get("mcp-session-id").is_none());
        }
    }

    // Browser pages on an allowed origin get CORS headers and a preflight answer.
    let preflight = server
        .client
        .request(reqwest::Method::OPTIONS, &server.url)
        .header("origin", "http://localhost:5173")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    assert!(
        preflight.headers()["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("mcp-session-id")
    );
    let refused = server
        .client
        .request(reqwest::Method::OPTIONS, &server.url)
        .header("origin", "http://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    let initialized = server
        .post_accept(None, &initialize, "application/json")
        .header("origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(
        initialized.headers()["access-control-allow-origin"],
        "http://localhost:5173"
    );
    assert_eq!(
        initialized.headers()["access-control-expose-headers"],
        "mcp-session-id"
    );
}

#[tokio::test]
async fn a_bearer_token_is_required_and_kept_out_of_the_log() {
    let home = home_with(&mock_config("http://127.0.0.1:9"));
    let token_file = home.path().join("token");
    std::fs::write(&token_file, "right-token-1234567\n").unwrap();
    let path = home.path().to_path_buf();
    let token_arg = token_file.to_string_lossy().to_string();
    let server = McpHttp::spawn_in(
        path,
        Some(home),
        &["--auth-token-file", &token_arg, "--max-body-bytes", "2000"],
        "debug",
    )
    .await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let missing = server.post(None, &initialize).send().await.unwrap();
    assert_eq!(missing.status(), 401);
    assert_eq!(missing.headers()["www-authenticate"], "Bearer");
    let wrong = server
        .post(None, &initialize)
        .header("authorization", "Bearer wrong-secret-456")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    let right = server
        .post_accept(None, &initialize, "application/json")
        .header("authorization", "bearer right-token-1234567")
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 200);
    let session = right.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let huge =
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x".repeat(4000)}});
    let too_large = server
        .post(Some(&session), &huge)
        .header("authorization", "Bearer right-token-1234567")
        .send()
        .await
        .unwrap();
    assert_eq!(too_large.status(), 413);

    let log = server.log_text();
    assert!(
        log.contains("http request"),
        "headers are logged at debug: {log}"
    );
    assert!(!log.contains("wrong-secret-456"), "{log}");
    assert!(!log.contains("right-token-1234567"), "{log}");
    assert!(
        log.contains(&format!("session_id={session}")) || log.contains(&session),
        "{log}"
    );
}

#[tokio::test]
async fn a_bad_token_file_is_a_clear_startup_error() {
    let home = home_with(&mock_config("http://127.0.0.1:9"));
    let output = tokio::process::Command::new(tandem_tests::server::tandem_binary())
        .args(["mcp-server", "--http", "127.0.0.1:0", "--auth-token-file"])
        .arg(home.path().join("missing"))
        .env("TANDEM_HOME", home.path())
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot read --auth-token-file"), "{stderr}");
}

#[tokio::test]
async fn http_batches_are_answered_with_one_array_under_2025_03_26_only() {
    let server = McpHttp::spawn(&mock_config("http://127.0.0.1:9"), &[]).await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]);
    let (old, _) = server.initialize("2025-03-26", json!({})).await;
    let answered = server
        .post_accept(Some(&old), &batch, "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200);
    let replies: Value = answered.json().await.unwrap();
    assert_eq!(replies.as_array().map(Vec::len), Some(2), "{replies}");
    let notifications = json!([{"jsonrpc": "2.0", "method": "notifications/initialized"}]);
    let accepted = server
        .post(Some(&old), &notifications)
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), 202);

    let (new, _) = server.initialize("2025-06-18", json!({})).await;
    let refused = server.post(Some(&new), &batch).send().await.unwrap();
    assert_eq!(refused.status(), 400);
    let no_session = server.post(None, &batch).send().await.unwrap();
    assert_eq!(no_session.status(), 400);
}
