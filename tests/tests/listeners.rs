//! `tandem app-server --listen ws://… | unix://…`: real processes and sockets. Admission
//! (bearer tokens as the reference checks them, `Origin`, the Unix peer's uid), the health
//! endpoints, principals kept apart, and several connections on one thread: events to every
//! subscriber, a question asked of all under one id and settled by the first answer, and a
//! question still open asked again of a connection that resumes the thread.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::{SystemTime, UNIX_EPOCH};

use common::tool_turns::{config, done, exec};
use serde_json::{Value, json};
use tandem_tests::listener::{Listener, WsClient};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};

fn approval_config(model: &MockModel) -> String {
    config(
        &model.base_url(),
        "untrusted",
        "danger-full-access",
        "responses",
    )
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// A token file naming two principals; returns it with their tokens.
fn token_file(dir: &std::path::Path) -> (std::path::PathBuf, String, String) {
    let alice = "alice-token-0123456789abcdef";
    let bob = "bob-token-0123456789abcdef01";
    let path = dir.join("tokens");
    std::fs::write(&path, format!("alice {alice}\nbob {bob}\n")).unwrap();
    (path, alice.to_string(), bob.to_string())
}

async fn start_thread(client: &mut WsClient, cwd: &std::path::Path) -> String {
    let started = client
        .request("thread/start", json!({"cwd": cwd.to_str().unwrap()}))
        .await
        .unwrap();
    started["thread"]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn health_endpoints_answer_200_with_an_empty_body_without_a_token() {
    let model = MockModel::start().await;
    let listener = Listener::spawn(&approval_config(&model), "ws://127.0.0.1:0", &[], None).await;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::new();
    for path in ["/readyz", "/healthz"] {
        let response = http
            .get(format!("http://{}{path}", listener.address()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.text().await.unwrap(), "", "{path}");
    }
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn a_generated_token_admits_and_bad_credentials_are_refused_as_the_reference_does() {
    let model = MockModel::start().await;
    let listener = Listener::spawn(&approval_config(&model), "ws://127.0.0.1:0", &[], None).await;
    let token_path = listener.home.join("app-server-ws.token");
    let mode = std::fs::metadata(&token_path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let token = std::fs::read_to_string(&token_path).unwrap();
    let token = token.trim_end();

    let refused = listener.connect(&[]).await.err().unwrap();
    assert_eq!(
        (refused.status, refused.body.as_str()),
        (401, "missing websocket bearer token")
    );
    let wrong = bearer("not-the-token-at-all-0123456789");
    let refused = listener
        .connect(&[("Authorization", &wrong)])
        .await
        .err()
        .unwrap();
    assert_eq!(
        (refused.status, refused.body.as_str()),
        (401, "invalid websocket bearer token")
    );
    let basic = format!("Basic {token}");
    let refused = listener
        .connect(&[("Authorization", &basic)])
        .await
        .err()
        .unwrap();
    assert_eq!(
        (refused.status, refused.body.as_str()),
        (401, "invalid authorization header")
    );
    let good = bearer(token);
    let refused = listener
        .connect(&[
            ("Authorization", &good),
            ("Origin", "http://elsewhere.test"),
        ])
        .await
        .err()
        .unwrap();
    assert_eq!(refused.status, 403);

    // The scheme is read in any case.
    let lowercase = format!("bearer {token}");
    let mut client = listener
        .connect(&[("Authorization", &lowercase)])
        .await
        .unwrap();
    let initialized = client.initialize().await;
    assert!(initialized["userAgent"].is_string());
    // Each connection does its own `initialize`.
    let mut second = listener.connect(&[("Authorization", &good)]).await.unwrap();
    let error = second.request("thread/list", json!({})).await.unwrap_err();
    assert_eq!(error["message"], "Not initialized");
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn token_file_principals_are_kept_apart_and_an_allowed_origin_connects() {
    let model = MockModel::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (tokens, alice, bob) = token_file(dir.path());
    let listener = Listener::spawn(
        &approval_config(&model),
        "ws://127.0.0.1:0",
        &[
            "--ws-token-file",
            tokens.to_str().unwrap(),
            "--allowed-origin",
            "http://page.test",
        ],
        None,
    )
    .await;
    let alice = bearer(&alice);
    let bob = bearer(&bob);
    let mut alice = listener
        .connect(&[("Authorization", &alice), ("Origin", "http://page.test")])
        .await
        .unwrap();
    alice.initialize().await;
    let thread_id = start_thread(&mut alice, dir.path()).await;

    let mut bob = listener.connect(&[("Authorization", &bob)]).await.unwrap();
    bob.initialize().await;
    let error = bob
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains(&thread_id),
        "{error}"
    );
    let error = bob
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
    let loaded = bob.request("thread/loaded/list", json!({})).await.unwrap();
    assert_eq!(loaded["data"], json!([]));
    let loaded = alice
        .request("thread/loaded/list", json!({}))
        .await
        .unwrap();
    assert_eq!(loaded["data"], json!([thread_id]));
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn signed_bearer_tokens_are_checked_and_name_their_subject() {
    let model = MockModel::start().await;
    let dir = tempfile::tempdir().unwrap();
    let secret = "a-shared-secret-of-enough-length-0123456789";
    let secret_path = dir.path().join("secret");
    std::fs::write(&secret_path, format!("{secret}\n")).unwrap();
    let listener = Listener::spawn(
        &approval_config(&model),
        "ws://127.0.0.1:0",
        &[
            "--ws-auth",
            "signed-bearer-token",
            "--ws-shared-secret-file",
            secret_path.to_str().unwrap(),
            "--ws-issuer",
            "tests",
            "--ws-audience",
            "tandem",
        ],
        None,
    )
    .await;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let sign = |claims: Value| {
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &claims,
            &jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    };
    let carol = sign(json!({"sub": "carol", "iss": "tests", "aud": "tandem", "exp": now + 300}));
    let dave = sign(json!({"sub": "dave", "iss": "tests", "aud": "tandem", "exp": now + 300}));
    let expired = sign(json!({"sub": "carol", "iss": "tests", "aud": "tandem", "exp": now - 3600}));
    let other_audience =
        sign(json!({"sub": "carol", "iss": "tests", "aud": "elsewhere", "exp": now + 300}));
    for token in [&expired, &other_audience, &"x.y.z".to_string()] {
        let refused = listener
            .connect(&[("Authorization", &bearer(token))])
            .await
            .err()
            .unwrap();
        assert_eq!(
            (refused.status, refused.body.as_str()),
            (401, "invalid websocket bearer token")
        );
    }
    let mut carol = listener
        .connect(&[("Authorization", &bearer(&carol))])
        .await
        .unwrap();
    carol.initialize().await;
    let thread_id = start_thread(&mut carol, dir.path()).await;
    let mut dave = listener
        .connect(&[("Authorization", &bearer(&dave))])
        .await
        .unwrap();
    dave.initialize().await;
    let error = dave
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn ws_auth_none_is_refused_off_loopback() {
    let home = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(tandem_tests::server::tandem_binary())
        .args([
            "app-server",
            "--listen",
            "ws://0.0.0.0:0",
            "--ws-auth",
            "none",
        ])
        .env("TANDEM_HOME", home.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loopback addresses only"), "{stderr}");

    let output = std::process::Command::new(tandem_tests::server::tandem_binary())
        .args(["app-server", "--listen", "tcp://127.0.0.1:1"])
        .env("TANDEM_HOME", home.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unsupported --listen"), "{stderr}");
}

#[tokio::test]
async fn a_unix_socket_is_private_admits_its_own_user_and_goes_away_on_sigterm() {
    let model = MockModel::start().await;
    let listener = Listener::spawn(&approval_config(&model), "unix://", &[], None).await;
    let socket = listener.socket_path();
    assert_eq!(
        socket,
        listener
            .home
            .join("app-server-control/app-server-control.sock")
    );
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&socket), 0o600);
    assert_eq!(mode(socket.parent().unwrap()), 0o700);

    let mut client = listener.connect(&[]).await.unwrap();
    client.initialize().await;
    let workspace = tempfile::tempdir().unwrap();
    start_thread(&mut client, workspace.path()).await;

    // Another user, even with the permissions opened, is refused by the kernel's word.
    std::fs::set_permissions(socket.parent().unwrap(), PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&socket, PermissionsExt::from_mode(0o666)).unwrap();
    assert_eq!(
        // SAFETY: geteuid has no preconditions.
        unsafe { libc::geteuid() },
        0,
        "this test connects as another user, which takes root"
    );
    let status = status_as_nobody(&socket);
    assert_eq!(status, "403", "a connection from another uid");

    assert_eq!(listener.terminate().await, Some(0));
    assert!(!socket.exists(), "the socket is removed on SIGTERM");
}

/// The HTTP status of a WebSocket upgrade on `socket` sent by a process running as `nobody`.
fn status_as_nobody(socket: &std::path::Path) -> String {
    let script = r#"
import os, socket, sys
os.setgid(65534); os.setuid(65534)
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
print(s.recv(64).split(b" ")[1].decode())
"#;
    let output = std::process::Command::new("python3")
        .args(["-c", script, socket.to_str().unwrap()])
        .output()
        .expect("python3");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[tokio::test]
async fn two_connections_on_one_thread_see_its_events_and_the_first_answer_wins() {
    let model = MockModel::start().await;
    model.push_all([exec("call_1", "touch ran.txt"), done()]);
    let listener = Listener::spawn(&approval_config(&model), "unix://", &[], None).await;
    let workspace = tempfile::tempdir().unwrap();
    let mut first = listener.connect(&[]).await.unwrap();
    first.initialize().await;
    let thread_id = start_thread(&mut first, workspace.path()).await;
    let mut second = listener.connect(&[]).await.unwrap();
    second.initialize().await;
    second
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();

    first
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "run it"}]}),
        )
        .await
        .unwrap();
    let asked_first = first.server_request().await;
    let asked_second = second.server_request().await;
    assert_eq!(
        asked_first["method"],
        "item/commandExecution/requestApproval"
    );
    assert_eq!(asked_first, asked_second, "one question, one id, on both");
    let id = asked_first["id"].clone();
    second.answer(&id, json!({"decision": "accept"})).await;
    for client in [&mut first, &mut second] {
        let resolved = client.notification("serverRequest/resolved").await;
        assert_eq!(resolved["requestId"], id);
    }
    // The losing answer comes too late and changes nothing.
    first.answer(&id, json!({"decision": "decline"})).await;
    let first_messages = first.until_turn_completed().await;
    let second_messages = second.until_turn_completed().await;
    assert!(workspace.path().join("ran.txt").exists());
    for messages in [&first_messages, &second_messages] {
        let completed = messages.last().unwrap();
        assert_eq!(completed["params"]["turn"]["status"], "completed");
        assert!(
            messages
                .iter()
                .any(|message| message["method"] == "item/agentMessage/delta"),
            "every subscriber streams the turn"
        );
    }
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn a_question_left_open_by_a_dropped_connection_is_asked_again_on_resume() {
    let model = MockModel::start().await;
    model.push_all([exec("call_1", "touch ran.txt"), done()]);
    let listener = Listener::spawn(&approval_config(&model), "unix://", &[], None).await;
    let workspace = tempfile::tempdir().unwrap();
    let mut first = listener.connect(&[]).await.unwrap();
    first.initialize().await;
    let thread_id = start_thread(&mut first, workspace.path()).await;
    first
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "run it"}]}),
        )
        .await
        .unwrap();
    let asked = first.server_request().await;
    first.close().await;

    let mut second = listener.connect(&[]).await.unwrap();
    second.initialize().await;
    let resumed = second
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(resumed["thread"]["status"]["type"], "active", "{resumed}");
    let asked_again = second.server_request().await;
    assert_eq!(asked_again["id"], asked["id"]);
    assert_eq!(asked_again["params"], asked["params"]);
    second
        .answer(&asked_again["id"], json!({"decision": "accept"}))
        .await;
    let messages = second.until_turn_completed().await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    assert!(workspace.path().join("ran.txt").exists());
    let read = second
        .request(
            "thread/read",
            json!({"threadId": thread_id, "includeTurns": true}),
        )
        .await
        .unwrap();
    assert_eq!(read["thread"]["turns"][0]["status"], "completed");
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn a_client_that_reconnects_mid_stream_misses_nothing_and_sees_nothing_twice() {
    let model = MockModel::start().await;
    let deltas = ["alpha ", "beta ", "gamma ", "delta ", "epsilon"];
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &deltas));
    model.push(response);
    let listener = Listener::spawn(&approval_config(&model), "unix://", &[], None).await;
    let workspace = tempfile::tempdir().unwrap();
    let mut first = listener.connect(&[]).await.unwrap();
    first.initialize().await;
    let thread_id = start_thread(&mut first, workspace.path()).await;
    first
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "stream"}]}),
        )
        .await
        .unwrap();
    // The stream's start and its first deltas reach the first client, which then drops.
    gate.release(4);
    for _ in 0..2 {
        first.notification("item/agentMessage/delta").await;
    }
    first.close().await;

    let mut second = listener.connect(&[]).await.unwrap();
    second.initialize().await;
    let resumed = second
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    let turn = &resumed["thread"]["turns"][0];
    assert_eq!(turn["status"], "inProgress", "{resumed}");
    let message = turn["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "agentMessage")
        .expect("the message being streamed");
    let shown = message["text"].as_str().unwrap().to_string();
    assert!(shown.starts_with("alpha beta "), "{shown:?}");

    gate.release_all();
    let messages = second.until_turn_completed().await;
    let later: String = messages
        .iter()
        .filter(|message| message["method"] == "item/agentMessage/delta")
        .map(|message| message["params"]["delta"].as_str().unwrap())
        .collect();
    let completed = messages
        .iter()
        .find(|message| {
            message["method"] == "item/completed"
                && message["params"]["item"]["type"] == "agentMessage"
        })
        .unwrap();
    let final_text = completed["params"]["item"]["text"].as_str().unwrap();
    assert_eq!(final_text, deltas.concat());
    assert_eq!(format!("{shown}{later}"), final_text);
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn a_thread_is_unloaded_when_its_last_connection_leaves_and_its_turn_is_done() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["still ", "going"]));
    model.push(response);
    let mut listener = Listener::spawn_logging(
        &approval_config(&model),
        "unix://",
        &[],
        None,
        "warn,tandem::processor::subscriptions=info",
    )
    .await;
    let workspace = tempfile::tempdir().unwrap();
    let mut first = listener.connect(&[]).await.unwrap();
    first.initialize().await;
    let thread_id = start_thread(&mut first, workspace.path()).await;
    first
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "go"}]}),
        )
        .await
        .unwrap();
    assert!(
        gate.wait_requested(std::time::Duration::from_secs(20))
            .await
    );
    // The last connection leaves mid-turn: the turn goes on, and the thread is unloaded
    // once it completes.
    first.close().await;
    gate.release_all();
    let line = listener.stderr_line("unloaded a thread").await;
    assert!(line.contains(&thread_id), "{line}");

    let mut second = listener.connect(&[]).await.unwrap();
    second.initialize().await;
    let loaded = second
        .request("thread/loaded/list", json!({}))
        .await
        .unwrap();
    assert_eq!(loaded["data"], json!([]));
    // It stays stored, with the turn that finished after its client left.
    let read = second
        .request(
            "thread/read",
            json!({"threadId": thread_id, "includeTurns": true}),
        )
        .await
        .unwrap();
    assert_eq!(read["thread"]["turns"][0]["status"], "completed");
    let resumed = second
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(resumed["thread"]["turns"][0]["status"], "completed");
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn a_websocket_client_gets_the_network_refusals_of_the_extension_methods() {
    let model = MockModel::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (tokens, alice, _) = token_file(dir.path());
    let listener = Listener::spawn(
        &approval_config(&model),
        "ws://127.0.0.1:0",
        &["--ws-token-file", tokens.to_str().unwrap()],
        None,
    )
    .await;
    let mut client = listener
        .connect(&[("Authorization", &bearer(&alice))])
        .await
        .unwrap();
    client.initialize().await;
    let thread_id = start_thread(&mut client, dir.path()).await;
    let error = client
        .request(
            "mcpServer/tool/call",
            json!({"threadId": thread_id, "server": "any", "tool": "echo", "arguments": {}}),
        )
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("clients.allow_mcp_server_calls"),
        "{error}"
    );
    let servers = json!({"migrationItems": [
        {"itemType": "MCP_SERVER_CONFIG", "description": "the project's MCP servers"}
    ]});
    let error = client
        .request("externalAgentConfig/import", servers.clone())
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("allowed only on a local connection"),
        "{error}"
    );
    assert_eq!(listener.terminate().await, Some(0));

    // The local user on the Unix socket has the trust of stdio: the import is not refused.
    let listener = Listener::spawn(&approval_config(&model), "unix://", &[], None).await;
    let mut local = listener.connect(&[]).await.unwrap();
    local.initialize().await;
    let imported = local
        .request("externalAgentConfig/import", servers)
        .await
        .unwrap();
    assert!(imported["importId"].is_string(), "{imported}");
    assert_eq!(listener.terminate().await, Some(0));
}
