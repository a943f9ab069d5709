//! Tests of the mock model server over raw HTTP/1.1, and of the frame builders.

use pretty_assertions::assert_eq;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

const TIMEOUT: Duration = Duration::from_secs(5);

/// Sends a raw HTTP/1.1 request and returns the connection.
async fn send(model: &MockModel, method: &str, path: &str, body: &str) -> TcpStream {
    let address = model.base_url().replace("http://", "").replace("/v1", "");
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: mock\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Reads until `needle` appears in what was received.
async fn read_until(stream: &mut TcpStream, received: &mut String, needle: &str) {
    let mut buffer = [0u8; 65536];
    tokio::time::timeout(TIMEOUT, async {
        while !received.contains(needle) {
            let read = stream.read(&mut buffer).await.unwrap();
            assert!(
                read > 0,
                "connection closed before {needle:?}; got {received:?}"
            );
            received.push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
    })
    .await
    .unwrap();
}

async fn read_to_end(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut received))
        .await
        .unwrap()
        .unwrap();
    String::from_utf8_lossy(&received).into_owned()
}

#[tokio::test]
async fn serves_queued_responses_in_order() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["Hel", "lo"])));
    model.push(MockResponse::error(429, "slow down").with_header("retry-after", "1"));

    let mut stream = send(&model, "POST", "/v1/responses", r#"{"model":"mock-model"}"#).await;
    let text = read_to_end(&mut stream).await;
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    assert!(text.contains("content-type: text/event-stream"), "{text}");
    assert!(text.contains("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hel\"}\n\n"), "{text}");
    assert!(text.contains("\"text\":\"Hello\""), "{text}");
    assert!(text.contains("\"output_tokens\":2"), "{text}");
    assert!(text.ends_with("0\r\n\r\n"), "{text}");

    let mut stream = send(&model, "POST", "/v1/chat/completions", "{}").await;
    let text = read_to_end(&mut stream).await;
    assert!(text.starts_with("HTTP/1.1 429"), "{text}");
    assert!(text.contains("retry-after: 1"), "{text}");
    assert!(text.contains(r#""message":"slow down""#), "{text}");

    let mut stream = send(&model, "POST", "/v1/responses", "{}").await;
    let text = read_to_end(&mut stream).await;
    assert!(text.starts_with("HTTP/1.1 500"), "{text}");
    assert!(
        text.contains("no response queued for request #3 (POST /v1/responses)"),
        "{text}"
    );

    let mut stream = send(&model, "GET", "/v1/models", "").await;
    let text = read_to_end(&mut stream).await;
    assert!(text.contains(r#""id":"mock-model""#), "{text}");

    assert_eq!(model.request_count(), 3);
    assert_eq!(
        model.requests(),
        vec![json!({"model": "mock-model"}), json!({}), json!({})]
    );
    let paths: Vec<String> = model
        .received()
        .into_iter()
        .map(|request| request.path)
        .collect();
    assert_eq!(
        paths,
        [
            "/v1/responses",
            "/v1/chat/completions",
            "/v1/responses",
            "/v1/models"
        ]
    );
    assert!(model.wait_for_requests(3, TIMEOUT).await);
}

#[tokio::test]
async fn models_endpoint_waits_for_its_delay() {
    let model = MockModel::start().await;
    let delay = Duration::from_millis(200);
    model.set_models_delay(delay);

    let started = std::time::Instant::now();
    let mut stream = send(&model, "GET", "/v1/models", "").await;
    let text = read_to_end(&mut stream).await;
    // Only a lower bound: an upper one would make the test flaky on a busy machine.
    assert!(started.elapsed() >= delay, "{:?}", started.elapsed());
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    assert!(text.contains(r#""id":"mock-model""#), "{text}");
    let paths: Vec<String> = model
        .received()
        .into_iter()
        .map(|request| request.path)
        .collect();
    assert_eq!(paths, ["/v1/models"]);
    assert_eq!(model.request_count(), 0);
}

#[tokio::test]
async fn drops_the_connection_mid_stream() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse_then_drop(chat_text(&["a", "b", "c"]), 2));
    let mut stream = send(&model, "POST", "/v1/chat/completions", "{}").await;
    let text = read_to_end(&mut stream).await;
    assert!(text.contains(r#""content":"""#), "{text}");
    assert!(text.contains(r#""content":"a""#), "{text}");
    assert!(!text.contains(r#""content":"b""#), "{text}");
    assert!(!text.ends_with("0\r\n\r\n"), "{text}");
}

#[tokio::test]
async fn gated_frames_wait_for_release() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["one", "two"]));
    model.push(response);
    assert_eq!(gate.sent(), None);
    let mut stream = send(&model, "POST", "/v1/responses", "{}").await;
    assert!(gate.wait_requested(TIMEOUT).await);

    let mut received = String::new();
    gate.release(2);
    read_until(&mut stream, &mut received, "response.output_item.added").await;
    assert!(gate.wait_sent(2, TIMEOUT).await);
    assert!(!received.contains("\"delta\":\"one\""), "{received}");

    gate.release(1);
    read_until(&mut stream, &mut received, "\"delta\":\"one\"").await;
    assert!(!received.contains("\"delta\":\"two\""), "{received}");

    gate.drop_connection();
    let rest = read_to_end(&mut stream).await;
    assert!(!rest.contains("\"delta\":\"two\""), "{rest}");
    assert!(!rest.ends_with("0\r\n\r\n"), "{rest}");
}

#[tokio::test]
async fn long_streams_are_fast() {
    let model = MockModel::start().await;
    let deltas = token_deltas(20_000);
    let started = std::time::Instant::now();
    model.push(MockResponse::sse(responses_text("msg_1", &deltas)));
    let mut stream = send(&model, "POST", "/v1/responses", "{}").await;
    let text = read_to_end(&mut stream).await;
    assert!(text.contains("\"output_tokens\":20000"));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn builders_concatenate_items() {
    let frames = ResponsesStream::new()
        .reasoning_summary("rs_1", &["think"])
        .function_call("call_1", "exec_command", r#"{"cmd":"ls"}"#)
        .frames();
    let events: Vec<&str> = frames
        .iter()
        .map(|frame| frame.as_str().lines().next().unwrap_or_default())
        .collect();
    assert_eq!(
        events,
        [
            "event: response.created",
            "event: response.output_item.added",
            "event: response.reasoning_summary_part.added",
            "event: response.reasoning_summary_text.delta",
            "event: response.output_item.done",
            "event: response.output_item.added",
            "event: response.function_call_arguments.delta",
            "event: response.output_item.done",
            "event: response.completed",
        ]
    );
    assert!(frames[5].as_str().contains("\"output_index\":1"));

    let frames = chat_tool_call("call_1", "exec_command", r#"{"cmd":"ls"}"#);
    let arguments: String = frames
        .iter()
        .filter_map(|frame| frame.as_str().strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .filter_map(|chunk| {
            chunk
                .pointer("/choices/0/delta/tool_calls/0/function/arguments")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect();
    assert_eq!(arguments, r#"{"cmd":"ls"}"#);
    assert_eq!(frames.last(), Some(&SseFrame::done()));
    assert!(
        frames[frames.len() - 3]
            .as_str()
            .contains("\"finish_reason\":\"tool_calls\"")
    );
}
