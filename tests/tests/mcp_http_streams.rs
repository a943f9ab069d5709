//! `tandem mcp-server --http` SSE streams over real HTTP on 127.0.0.1: a call's events on its
//! POST stream with a priming event, JSON replies with events on the GET stream,
//! `Last-Event-ID` resumption, cancellation, keep-alives, a large burst, and SIGTERM.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::HashSet;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, SseReader};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text, token_deltas};
use tandem_tests::server::mock_config;

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn a_codex_call_streams_on_its_post_stream_with_a_priming_event() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["Hi", " over", " HTTP."],
    )));
    model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["JSON", " reply."],
    )));
    let server = McpHttp::spawn(&mock_config(&model.base_url()), &[]).await;
    let (session, _) = server.initialize("2025-11-25", json!({})).await;

    let mut request = call(5, "codex", json!({"prompt": "Hello?"}));
    request["params"]["_meta"] = json!({"progressToken": 99});
    let response = server
        .post(Some(&session), &request)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let events = SseReader::new(response).rest().await;
    // Priming event: an id, empty data and a retry hint.
    assert_eq!(events[0].id.as_deref(), Some("1/0"));
    assert_eq!(events[0].data, "");
    assert_eq!(events[0].retry, Some(3000));
    let ids: HashSet<&str> = events
        .iter()
        .filter_map(|event| event.id.as_deref())
        .collect();
    assert_eq!(ids.len(), events.len(), "event ids are unique");
    let messages: Vec<Value> = events[1..].iter().map(|event| event.json()).collect();
    let last = messages.last().unwrap();
    assert_eq!(last["id"], 5);
    assert_eq!(
        last["result"]["structuredContent"]["content"],
        "Hi over HTTP."
    );
    let thread_id = last["result"]["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();
    let codex_events = messages
        .iter()
        .filter(|message| message["method"] == "codex/event")
        .count();
    assert!(codex_events >= 8, "{messages:?}");
    assert!(
        messages
            .iter()
            .filter(|message| message["method"] == "codex/event")
            .all(|message| message["params"]["_meta"]["requestId"] == 5)
    );
    assert!(
        messages
            .iter()
            .any(|message| message["method"] == "notifications/progress"
                && message["params"]["progressToken"] == 99)
    );

    // A JSON-mode call: the response is the body, and its events go to the GET stream.
    let get = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    let mut get_stream = SseReader::new(get);
    let second_get = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(second_get.status(), 409);
    let reply = server
        .post(
            Some(&session),
            &call(
                6,
                "codex-reply",
                json!({"threadId": thread_id, "prompt": "More."}),
            ),
        )
        .header("x-mcp-post-stream", "0")
        .send()
        .await
        .unwrap();
    assert_eq!(reply.headers()["content-type"], "application/json");
    let reply: Value = reply.json().await.unwrap();
    assert_eq!(
        reply["result"]["structuredContent"]["content"],
        "JSON reply."
    );
    let mut seen = Vec::new();
    loop {
        let event = get_stream.next().await.expect("GET stream open");
        assert!(event.id.as_deref().unwrap().starts_with("0/"));
        let message = event.json();
        let done = message["params"]["msg"]["type"] == "task_complete";
        seen.push(message);
        if done {
            break;
        }
    }
    assert!(
        seen.iter()
            .all(|message| message["params"]["_meta"]["requestId"] == 6)
    );
    assert!(seen.iter().all(|message| message.get("result").is_none()));
}

#[tokio::test]
async fn a_dropped_post_stream_resumes_with_last_event_id() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["one", " two", " three"]));
    model.push(response);
    let server = McpHttp::spawn(&mock_config(&model.base_url()), &[]).await;
    let (session, _) = server.initialize("2025-11-25", json!({})).await;
    let response = server
        .post(
            Some(&session),
            &call(8, "codex", json!({"prompt": "Count."})),
        )
        .send()
        .await
        .unwrap();
    let mut stream = SseReader::new(response);
    let priming = stream.next().await.unwrap();
    assert_eq!(priming.id.as_deref(), Some("1/0"));
    gate.release(2);
    let mut last_id = priming.id.unwrap();
    let mut before = Vec::new();
    while before.len() < 3 {
        let event = stream.next().await.unwrap();
        last_id = event.id.clone().unwrap();
        before.push(event.json());
    }
    drop(stream);
    gate.release_all();
    // The turn goes on while nobody listens; whether it has finished when the client comes
    // back (the replay ends the stream) or not (the replay continues live), the resumed
    // stream carries everything after `last_id` up to the result.
    let resumed = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", &last_id)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    let rest = SseReader::new(resumed).rest().await;
    let (stream_id, seq) = last_id.split_once('/').unwrap();
    let first_seq: u64 = rest[0]
        .id
        .as_deref()
        .unwrap()
        .split_once('/')
        .unwrap()
        .1
        .parse()
        .unwrap();
    assert_eq!(
        first_seq,
        seq.parse::<u64>().unwrap() + 1,
        "replay starts right after"
    );
    assert!(rest.iter().all(|event| {
        event
            .id
            .as_deref()
            .unwrap()
            .starts_with(&format!("{stream_id}/"))
    }));
    let last = rest.last().unwrap().json();
    assert_eq!(last["id"], 8);
    assert_eq!(
        last["result"]["structuredContent"]["content"],
        "one two three"
    );
    let malformed = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", "nonsense")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), 400);
}

#[tokio::test]
async fn streams_carry_keep_alives_and_a_signal_ends_the_server() {
    let mut server = McpHttp::spawn(
        &mock_config("http://127.0.0.1:9"),
        &["--sse-keep-alive", "100ms"],
    )
    .await;
    let (session, _) = server.initialize("2025-06-18", json!({})).await;
    let mut get = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    assert_eq!(get.headers()["content-type"], "text/event-stream");
    let chunk = tokio::time::timeout(Duration::from_secs(5), get.chunk())
        .await
        .expect("a keep-alive within 5 s")
        .unwrap()
        .expect("a chunk");
    assert_eq!(String::from_utf8_lossy(&chunk), ": keep-alive\n\n");

    // SIGTERM with a stream open: the sessions close, the stream ends, the process exits 0.
    let pid = server.child.id().expect("running").to_string();
    let killed = tokio::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .await
        .unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(Duration::from_secs(10), server.child.wait())
        .await
        .expect("the server exits after SIGTERM")
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let rest = tokio::time::timeout(Duration::from_secs(5), async {
        let mut rest = Vec::new();
        while let Ok(Some(chunk)) = get.chunk().await {
            rest.push(chunk);
        }
        rest
    })
    .await
    .expect("the GET stream ends");
    assert!(rest.iter().all(|chunk| chunk.starts_with(b": keep-alive")));
}

#[tokio::test]
async fn a_cancelled_call_ends_its_post_stream_without_a_response() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["never", " done"]));
    model.push(response);
    let server = McpHttp::spawn(&mock_config(&model.base_url()), &[]).await;
    let (session, _) = server.initialize("2025-06-18", json!({})).await;
    let response = server
        .post(
            Some(&session),
            &call(4, "codex", json!({"prompt": "Stop me."})),
        )
        .send()
        .await
        .unwrap();
    let mut stream = SseReader::new(response);
    gate.release(1);
    loop {
        let message = stream.next().await.unwrap().json();
        if message["params"]["msg"]["type"] == "task_started" {
            break;
        }
    }
    let cancel = server
        .post(
            Some(&session),
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(cancel.status(), 202);
    let rest: Vec<Value> = stream
        .rest()
        .await
        .iter()
        .map(|event| event.json())
        .collect();
    let last = rest.last().expect("events after the cancellation");
    assert_eq!(last["params"]["msg"]["type"], "turn_aborted");
    assert_eq!(last["params"]["msg"]["reason"], "interrupted");
    assert!(
        rest.iter().all(|message| message.get("id").is_none()),
        "{rest:?}"
    );

    // A failed initialize creates no session.
    let bad = server
        .post_accept(
            None,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
            "application/json",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    assert!(bad.headers().get("mcp-session-id").is_none());
    assert_eq!(bad.json::<Value>().await.unwrap()["error"]["code"], -32602);
    drop(gate);
}

#[tokio::test]
async fn a_burst_of_twenty_thousand_deltas_arrives_whole_on_the_post_stream() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &token_deltas(20_000),
    )));
    let server = McpHttp::spawn(&mock_config(&model.base_url()), &[]).await;
    let (session, _) = server.initialize("2025-06-18", json!({})).await;
    let response = server
        .post(
            Some(&session),
            &call(1, "codex", json!({"prompt": "Talk a lot."})),
        )
        .send()
        .await
        .unwrap();
    let events = SseReader::new(response).rest().await;
    let deltas = events
        .iter()
        .filter(|event| event.data.contains("agent_message_content_delta"))
        .count();
    assert_eq!(deltas, 20_000);
    let last = events.last().unwrap().json();
    assert_eq!(last["id"], 1);
    let content = last["result"]["structuredContent"]["content"]
        .as_str()
        .unwrap();
    assert!(content.starts_with("tok0 tok1 ") && content.ends_with("tok19999 "));
}
