//! Values from outside the server have caps, against the real binary over real HTTP: a
//! provider's stream indices, event-stream lines and non-streamed bodies, the image files a
//! client names, and stdin lines. Each refusal ends only the turn or the request concerned,
//! with an error naming the cause, and the process goes on serving other threads.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::McpStdio;
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{TestServer, mock_config};

/// The caps the server applies (`model/sse_parser.rs`, `model/sse.rs`, the default
/// `app_server.max_line_bytes`).
const MAX_SSE_LINE_BYTES: usize = 16 * 1024 * 1024;
const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;
const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

async fn started_server(config_toml: &str) -> TestServer {
    let mut server = TestServer::spawn(config_toml).await;
    server.initialize().await;
    server
}

async fn start_thread(server: &mut TestServer) -> String {
    let result = server
        .request("thread/start", json!({"cwd": "/tmp/project"}))
        .await
        .unwrap();
    server.notification("thread/started").await;
    result["thread"]["id"].as_str().unwrap().to_string()
}

/// Starts a turn with `input` and returns every message up to its `turn/completed`.
async fn run_turn(server: &mut TestServer, thread_id: &str, input: Value) -> Vec<Value> {
    server
        .request("turn/start", json!({"threadId": thread_id, "input": input}))
        .await
        .unwrap();
    server.until_turn_completed().await
}

fn text(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

/// Asserts that the turn whose transcript is `messages` failed with `message`, both in its
/// `error` notification (not retried) and in `turn/completed`.
fn assert_failed_with(messages: &[Value], message: &str) {
    let completed = messages.last().unwrap();
    assert_eq!(completed["method"], "turn/completed");
    assert_eq!(completed["params"]["turn"]["status"], "failed", "{message}");
    assert_eq!(completed["params"]["turn"]["error"]["message"], message);
    let errors: Vec<&Value> = messages
        .iter()
        .filter(|message| message["method"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["params"]["error"]["message"], message);
    assert_eq!(errors[0]["params"]["willRetry"], false);
}

/// A turn on a fresh thread completes with the model's text.
async fn assert_another_thread_completes(server: &mut TestServer, model: &MockModel) {
    let thread_id = start_thread(server).await;
    model.push(MockResponse::sse(responses_text(
        "msg_ok",
        &["still ", "here"],
    )));
    let messages = run_turn(server, &thread_id, text("again")).await;
    let completed = messages.last().unwrap();
    assert_eq!(completed["params"]["turn"]["status"], "completed");
    let answer = messages
        .iter()
        .find(|message| {
            message["method"] == "item/completed"
                && message["params"]["item"]["type"] == "agentMessage"
        })
        .unwrap();
    assert_eq!(answer["params"]["item"]["text"], "still here");
}

fn sse_event(data: Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap()
    )
}

/// A Responses stream that opens a reasoning item, then sends `event`.
fn reasoning_stream_then(event: Value) -> String {
    [
        json!({"type": "response.created", "response": {"id": "resp_1"}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
        event,
        json!({"type": "response.completed", "response": {"id": "resp_1"}}),
    ]
    .into_iter()
    .map(sse_event)
    .collect()
}

/// Stream indices are lengths the engine grows a list to: `summary_index` 4000000000 took
/// the process to 10 GB and killed it. Each over-limit index now fails its turn (without a
/// retry), and the process serves another thread.
#[tokio::test]
async fn stream_indices_over_the_limit_fail_the_turn_and_another_thread_goes_on() {
    let model = MockModel::start().await;
    let mut server = started_server(&mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server).await;
    let cases = [
        (
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 4_000_000_000_u64, "delta": "x"}),
            "model stream: summary_index 4000000000 exceeds the limit of 1024",
        ),
        (
            json!({"type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 4_000_000_000_u64, "delta": "x"}),
            "model stream: content_index 4000000000 exceeds the limit of 1024",
        ),
        (
            json!({"type": "response.output_item.added", "output_index": 4_000_000_000_u64, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
            "model stream: output_index 4000000000 exceeds the limit of 1024",
        ),
    ];
    let turns = cases.len();
    for (event, message) in cases {
        model.push(MockResponse::raw(
            "text/event-stream",
            reasoning_stream_then(event),
        ));
        let messages = run_turn(&mut server, &thread_id, text("think")).await;
        assert_failed_with(&messages, message);
    }
    assert_eq!(
        model.request_count(),
        turns,
        "an over-limit index is not retried"
    );
    assert_another_thread_completes(&mut server, &model).await;
    assert_eq!(server.shutdown().await, Some(0));
}

/// An event-stream line that does not end within 16 MiB fails the turn instead of being
/// buffered until the body ends (a 300 MB line was read whole).
#[tokio::test]
async fn an_event_stream_line_over_the_limit_fails_the_turn() {
    let model = MockModel::start().await;
    let mut server = started_server(&mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server).await;
    let mut body = sse_event(json!({"type": "response.created", "response": {"id": "resp_1"}}));
    body.push_str("data: ");
    body.push_str(&"x".repeat(MAX_SSE_LINE_BYTES + 1));
    model.push(MockResponse::raw("text/event-stream", body));
    let messages = run_turn(&mut server, &thread_id, text("go")).await;
    assert_failed_with(
        &messages,
        "model stream: an event-stream line exceeds the limit of 16 MiB",
    );
    assert_another_thread_completes(&mut server, &model).await;
    assert_eq!(server.shutdown().await, Some(0));
}

/// A non-streamed answer (`stream = false`) over 64 MiB fails the turn, although it is valid
/// JSON: it used to be read and parsed whole, whatever its size.
#[tokio::test]
async fn a_non_streamed_answer_over_the_limit_fails_the_turn() {
    let model = MockModel::start().await;
    let config = format!("{}stream = false\n", mock_config(&model.base_url()));
    let mut server = started_server(&config).await;
    let thread_id = start_thread(&mut server).await;
    let answer = format!(
        r#"{{"id":"resp_1","status":"completed","output":[],"padding":"{}"}}"#,
        "x".repeat(MAX_ANSWER_BYTES)
    );
    model.push(MockResponse::raw("application/json", answer));
    let messages = run_turn(&mut server, &thread_id, text("go")).await;
    assert_failed_with(
        &messages,
        "model answer: the answer body exceeds the limit of 64 MiB",
    );
    let answer = json!({"id": "resp_2", "status": "completed", "output": [
        {"type": "message", "id": "msg_ok", "role": "assistant", "content": [{"type": "output_text", "text": "still here"}]}
    ]});
    let second = start_thread(&mut server).await;
    model.push(MockResponse::json(answer));
    let messages = run_turn(&mut server, &second, text("again")).await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

/// Chat Completions numbers tool calls with `tool_calls[].index`: the same cap applies.
#[tokio::test]
async fn chat_tool_call_indices_over_the_limit_fail_the_turn() {
    let model = MockModel::start().await;
    let config =
        mock_config(&model.base_url()).replace("wire_api = \"responses\"", "wire_api = \"chat\"");
    let mut server = started_server(&config).await;
    let thread_id = start_thread(&mut server).await;
    let chunk = json!({"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 4_000_000_000_u64, "id": "call_1", "type": "function", "function": {"name": "update_plan", "arguments": "{\"plan\":[]}"}}
    ]}, "finish_reason": "tool_calls"}]});
    model.push(MockResponse::raw(
        "text/event-stream",
        format!("data: {chunk}\n\ndata: [DONE]\n\n"),
    ));
    let messages = run_turn(&mut server, &thread_id, text("plan")).await;
    assert_failed_with(
        &messages,
        "model stream: tool_calls index 4000000000 exceeds the limit of 1024",
    );
    assert_eq!(model.request_count(), 1);
    assert_eq!(server.shutdown().await, Some(0));
}

/// A `localImage` at a FIFO blocked the server's one async worker forever (and at
/// `/dev/zero`, grew it past 10 GB) while holding the thread's lock. Now neither is opened
/// for reading: the turn fails naming the path and the reason, `thread/list` sent right
/// behind the turn is answered, and the model never sees the turn.
#[tokio::test]
async fn local_images_that_are_not_regular_files_fail_the_turn_and_the_server_goes_on() {
    let model = MockModel::start().await;
    let mut server = started_server(&mock_config(&model.base_url())).await;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("screenshot.png");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let thread_id = start_thread(&mut server).await;
    for path in [fifo.display().to_string(), "/dev/zero".to_string()] {
        let input = json!([
            {"type": "text", "text": "what is in this picture?"},
            {"type": "localImage", "path": path},
        ]);
        let turn = server
            .send_request("turn/start", json!({"threadId": thread_id, "input": input}))
            .await;
        let list = server.send_request("thread/list", json!({})).await;
        // Both answers, then the whole transcript up to the turn's end.
        assert!(server.response(turn).await.is_ok());
        let listed = server.response(list).await.unwrap();
        assert!(listed["data"].is_array(), "{listed}");
        let messages = server.until_turn_completed().await;
        assert_failed_with(
            &messages,
            &format!("cannot attach a local image: {path} is not a regular file"),
        );
        // The user message is kept, with the path; the model is told the image is missing.
        let user_message = messages
            .iter()
            .find(|message| {
                message["method"] == "item/completed"
                    && message["params"]["item"]["type"] == "userMessage"
            })
            .unwrap();
        assert_eq!(
            user_message["params"]["item"]["content"][1],
            json!({"type": "localImage", "path": path, "detail": null})
        );
    }
    assert_eq!(model.request_count(), 0);
    assert_another_thread_completes(&mut server, &model).await;
    assert_eq!(server.shutdown().await, Some(0));
}

/// A 20 MiB stdin line (over the default cap of 16 MiB) was dropped without an answer, so
/// the client waited forever. It is now answered `-32600` with the id found at the line's
/// start, or `"id": null` when the id comes after the first few KiB; the next request is
/// served as usual.
#[tokio::test]
async fn an_overlong_stdin_line_is_answered_with_its_id() {
    let model = MockModel::start().await;
    let mut server = started_server(&mock_config(&model.base_url())).await;
    let padding = "x".repeat(20 * 1024 * 1024);
    server
        .send_line(&format!(
            r#"{{"id":"big-1","method":"thread/list","params":{{"searchTerm":"{padding}"}}}}"#
        ))
        .await;
    server
        .send_line(&format!(
            r#"{{"method":"thread/list","params":{{"searchTerm":"{padding}"}},"id":9}}"#
        ))
        .await;
    let after = server.send_request("thread/loaded/list", json!({})).await;
    let error = |id: Value| {
        json!({
            "id": id,
            "error": {
                "code": -32600,
                "message": format!("invalid request: the line exceeds the limit of {DEFAULT_MAX_LINE_BYTES} bytes (app_server.max_line_bytes)"),
            },
        })
    };
    assert_eq!(server.next_message().await, error(json!("big-1")));
    assert_eq!(server.next_message().await, error(Value::Null));
    assert_eq!(
        server.next_message().await,
        json!({"id": after, "result": {"data": [], "nextCursor": null}})
    );
    assert_eq!(server.shutdown().await, Some(0));
}

/// The MCP adapter reads stdin with the same reader and answers the same way.
#[tokio::test]
async fn the_mcp_adapter_answers_an_overlong_stdin_line_with_its_id() {
    let mut server = McpStdio::spawn(&mock_config("http://127.0.0.1:9"), &[]).await;
    let padding = "x".repeat(20 * 1024 * 1024);
    server
        .send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{"cursor":"{padding}"}}}}"#
        ))
        .await;
    let reply = server.response(&json!(5)).await;
    assert_eq!(
        reply,
        json!({
            "jsonrpc": "2.0",
            "id": 5,
            "error": {
                "code": -32600,
                "message": format!("invalid request: the line exceeds the limit of {DEFAULT_MAX_LINE_BYTES} bytes (app_server.max_line_bytes)"),
            },
        })
    );
    let pong = server.request(json!(6), "ping", Value::Null).await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 6, "result": {}}));
    assert_eq!(server.shutdown().await, Some(0));
}
