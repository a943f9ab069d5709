//! The connection limits of `app-server --listen`: `--max-connections` counts a WebSocket for
//! as long as it is open and closes one connection more at once, and `--header-read-timeout`
//! closes a connection that does not finish its request head.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use tandem_tests::listener::Listener;
use tandem_tests::mock_model::MockModel;
use tandem_tests::server::{READ_TIMEOUT, mock_config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Everything the server sends on `stream` until it closes it.
async fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    let read = tokio::time::timeout(READ_TIMEOUT, stream.read_to_end(&mut received))
        .await
        .expect("the server kept the connection open");
    // A reset is a close too.
    if let Err(error) = read {
        assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset, "{error}");
    }
    received
}

#[tokio::test]
async fn open_websockets_count_against_the_cap_and_a_closed_one_frees_its_place() {
    let model = MockModel::start().await;
    let args = ["--ws-auth", "none", "--max-connections", "2"];
    let listener = Listener::spawn(
        &mock_config(&model.base_url()),
        "ws://127.0.0.1:0",
        &args,
        None,
    )
    .await;
    let mut first = listener.connect(&[]).await.unwrap();
    first.initialize().await;
    let mut second = listener.connect(&[]).await.unwrap();
    second.initialize().await;

    // Both upgraded connections still hold their places: a third is closed unanswered.
    let mut third = TcpStream::connect(listener.address()).await.unwrap();
    let _ = third
        .write_all(b"GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    assert_eq!(read_until_closed(&mut third).await, b"");
    // The two are still served.
    first
        .request("thread/list", serde_json::json!({}))
        .await
        .unwrap();
    second
        .request("thread/list", serde_json::json!({}))
        .await
        .unwrap();

    // Once one is closed, its place is free again (as soon as the server has dropped it).
    first.close().await;
    let admitted = tokio::time::timeout(READ_TIMEOUT, async {
        loop {
            let mut stream = TcpStream::connect(listener.address()).await.unwrap();
            stream
                .write_all(b"GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .await
                .unwrap();
            let answer = read_until_closed(&mut stream).await;
            if !answer.is_empty() {
                return String::from_utf8(answer).unwrap();
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("no place was freed");
    assert!(admitted.starts_with("HTTP/1.1 200"), "{admitted}");
    assert_eq!(listener.terminate().await, Some(0));
}

#[tokio::test]
async fn a_connection_that_does_not_finish_its_request_head_is_closed() {
    let model = MockModel::start().await;
    let args = ["--ws-auth", "none", "--header-read-timeout", "1s"];
    let listener = Listener::spawn(
        &mock_config(&model.base_url()),
        "ws://127.0.0.1:0",
        &args,
        None,
    )
    .await;
    let mut slow = TcpStream::connect(listener.address()).await.unwrap();
    slow.write_all(b"GET /readyz HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let answer = read_until_closed(&mut slow).await;
    assert!(started.elapsed() >= Duration::from_millis(900));
    // hyper answers 408 or closes without a word; either way no 200.
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    // A client that sends its request head in time is served.
    let mut client = listener.connect(&[]).await.unwrap();
    client.initialize().await;
    assert_eq!(listener.terminate().await, Some(0));
}
