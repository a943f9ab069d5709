//! `tandem app-server --listen ws://… --web`: the page is served at `/`, its URL (token in the
//! fragment) is printed on stderr, and a connection from the page's own origin authenticates
//! with its first message: the right token admits it, a wrong one, another message or none
//! within the deadline closes it with a reason; any other origin stays refused, and without
//! `--web` there is no page and no first-message handshake. The page itself is tested in a real
//! browser by `clients/web/test/browser.test.mjs`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::time::{Duration, Instant};

use common::tool_turns::config;
use serde_json::json;
use tandem_tests::listener::Listener;
use tandem_tests::mock_model::MockModel;

const TOKEN: &str = "web-token-0123456789abcdef0123";

async fn listener(model: &MockModel, web: bool) -> (Listener, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("token");
    std::fs::write(&tokens, format!("{TOKEN}\n")).unwrap();
    let config = config(
        &model.base_url(),
        "untrusted",
        "workspace-write",
        "responses",
    );
    let mut args = vec!["--ws-token-file", tokens.to_str().unwrap()];
    if web {
        args.push("--web");
    }
    let listener = Listener::spawn(&config, "ws://127.0.0.1:0", &args, None).await;
    (listener, dir)
}

fn page_origin(listener: &Listener) -> String {
    format!("http://{}", listener.address())
}

fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

#[tokio::test]
async fn web_serves_the_page_and_prints_its_url_with_the_token_in_the_fragment() {
    let model = MockModel::start().await;
    let (mut listener, _dir) = listener(&model, true).await;
    let line = listener.stderr_line("web client at").await;
    let expected = format!("{}/#token={TOKEN}", page_origin(&listener));
    assert!(line.ends_with(&expected), "{line}");

    let http = http();
    let page = http
        .get(format!("{}/", page_origin(&listener)))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(
        page.headers()["content-type"],
        "text/html; charset=utf-8",
        "{:?}",
        page.headers()
    );
    let csp = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(page.text().await.unwrap().contains("/web/app.js"));
    let script = http
        .get(format!("{}/web/app.js", page_origin(&listener)))
        .send()
        .await
        .unwrap();
    assert_eq!(script.status(), 200);
    assert_eq!(
        script.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    let rpc = http
        .get(format!("{}/web/rpc.js", page_origin(&listener)))
        .send()
        .await
        .unwrap();
    assert!(rpc.text().await.unwrap().contains("\"authenticate\""));
    let missing = http
        .get(format!("{}/web/nothing.js", page_origin(&listener)))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn without_web_there_is_no_page_and_the_page_origin_is_refused() {
    let model = MockModel::start().await;
    let (listener, _dir) = listener(&model, false).await;
    let http = http();
    let page = http
        .get(format!("{}/", page_origin(&listener)))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 401);
    let script = http
        .get(format!("{}/web/app.js", page_origin(&listener)))
        .send()
        .await
        .unwrap();
    assert_eq!(script.status(), 404);
    let origin = page_origin(&listener);
    let refused = listener
        .connect(&[("Origin", &origin)])
        .await
        .err()
        .unwrap();
    assert_eq!(refused.status, 403);
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn the_page_origin_authenticates_with_its_first_message() {
    let model = MockModel::start().await;
    let (listener, _dir) = listener(&model, true).await;
    let origin = page_origin(&listener);
    for origin in [
        origin.clone(),
        format!(
            "http://localhost:{}",
            listener.address().rsplit(':').next().unwrap()
        ),
    ] {
        let mut client = listener.connect(&[("Origin", &origin)]).await.unwrap();
        client
            .send(&json!({"type": "authenticate", "token": TOKEN}))
            .await;
        let initialized = client.initialize().await;
        assert!(initialized["userAgent"].is_string(), "{origin}");
        let threads = client.request("thread/list", json!({})).await.unwrap();
        assert_eq!(threads["data"], json!([]));
        client.close().await;
    }
    // A bearer header from the page's origin is checked as usual.
    let bearer = format!("Bearer {TOKEN}");
    let mut client = listener
        .connect(&[("Origin", &origin), ("Authorization", &bearer)])
        .await
        .unwrap();
    client.initialize().await;
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn a_wrong_token_or_another_first_message_closes_with_the_reason() {
    let model = MockModel::start().await;
    let (listener, _dir) = listener(&model, true).await;
    let origin = page_origin(&listener);
    let cases = [
        (
            json!({"type": "authenticate", "token": "not-the-token-0123456789abcdef"}),
            "invalid websocket bearer token",
        ),
        (
            json!({"type": "authenticate", "token": ""}),
            "missing websocket bearer token",
        ),
        (
            json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "x", "version": "1"}}}),
            "the first message must be {\"type\":\"authenticate\",\"token\":\"...\"}",
        ),
    ];
    for (first, reason) in cases {
        let mut client = listener.connect(&[("Origin", &origin)]).await.unwrap();
        client.send(&first).await;
        assert_eq!(client.close_frame().await, (1008, reason.to_string()));
    }
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn no_first_message_within_the_deadline_closes_the_connection() {
    let model = MockModel::start().await;
    let (listener, _dir) = listener(&model, true).await;
    let origin = page_origin(&listener);
    let started = Instant::now();
    let mut client = listener.connect(&[("Origin", &origin)]).await.unwrap();
    assert_eq!(
        client.close_frame().await,
        (1008, "no authentication message within 5 s".to_string())
    );
    assert!(started.elapsed() >= Duration::from_secs(5));
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn another_origin_is_refused_even_with_web_on() {
    let model = MockModel::start().await;
    let (listener, _dir) = listener(&model, true).await;
    let bearer = format!("Bearer {TOKEN}");
    for headers in [
        vec![("Origin", "http://elsewhere.test")],
        vec![
            ("Origin", "http://elsewhere.test"),
            ("Authorization", &bearer),
        ],
        vec![("Origin", "http://127.0.0.1:1")],
    ] {
        let refused = listener.connect(&headers).await.err().unwrap();
        assert_eq!(
            (refused.status, refused.body.as_str()),
            (403, "websocket origin not allowed"),
            "{headers:?}"
        );
    }
    // Clients that are not browsers still use the bearer header; without one they are refused.
    let refused = listener.connect(&[]).await.err().unwrap();
    assert_eq!(refused.status, 401);
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn with_ws_auth_none_the_page_url_has_no_token_and_any_first_token_is_the_local_user() {
    let model = MockModel::start().await;
    let config = config(
        &model.base_url(),
        "untrusted",
        "workspace-write",
        "responses",
    );
    let mut listener = Listener::spawn(
        &config,
        "ws://127.0.0.1:0",
        &["--ws-auth", "none", "--web"],
        None,
    )
    .await;
    let line = listener.stderr_line("web client at").await;
    assert!(
        line.ends_with(&format!("web client at {}/", page_origin(&listener))),
        "{line}"
    );
    let origin = page_origin(&listener);
    let mut client = listener.connect(&[("Origin", &origin)]).await.unwrap();
    client
        .send(&json!({"type": "authenticate", "token": ""}))
        .await;
    client.initialize().await;
    assert_eq!(listener.terminate().await, Some(0));
}
