//! Turns against the mock model over real HTTP: streaming order, interrupt, steer, failures
//! and retries, both wire APIs.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{
    ChatStream, MockModel, MockResponse, ResponsesStream, responses_failed, responses_text,
    token_deltas,
};
use tandem_tests::server::{TestServer, methods, mock_config};

async fn started_thread(model: &MockModel) -> (TestServer, String) {
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let result = server
        .request("thread/start", json!({"cwd": "/tmp/project"}))
        .await
        .unwrap();
    let thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    server.notification("thread/started").await;
    (server, thread_id)
}

fn text_input(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

#[tokio::test]
async fn a_streamed_answer_follows_the_reference_order() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_2", &token_deltas(8))));
    let (mut server, thread_id) = started_thread(&model).await;

    let id = server
        .send_request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("Say hello.")}),
        )
        .await;
    let mut messages = vec![
        server
            .take_matching(|message| message.get("id") == Some(&json!(id)))
            .await,
    ];
    messages.extend(server.until_turn_completed().await);
    // The same methods in the same order as `a_text_stream.jsonl` (minus the reference
    // server's unknown-model `warning` and its account/readState extras).
    let mut expected = vec![
        "response",
        "thread/status/changed",
        "turn/started",
        "item/started",
        "item/completed",
        "item/started",
    ];
    expected.extend(std::iter::repeat_n("item/agentMessage/delta", 8));
    expected.extend([
        "item/completed",
        "thread/tokenUsage/updated",
        "thread/status/changed",
        "turn/completed",
    ]);
    assert_eq!(methods(&messages), expected);

    let turn = &messages[0]["result"]["turn"];
    assert_eq!(turn["status"], "inProgress");
    assert_eq!(turn["startedAt"], Value::Null);
    assert_eq!(turn["itemsView"], "notLoaded");
    assert_eq!(
        messages[1]["params"]["status"],
        json!({"type": "active", "activeFlags": []})
    );
    assert_eq!(
        messages[4]["params"]["item"]["content"],
        json!([{"type": "text", "text": "Say hello.", "text_elements": []}])
    );
    assert_eq!(messages[5]["params"]["item"]["id"], "msg_2");
    assert_eq!(messages[5]["params"]["item"]["text"], "");
    let completed_message = &messages[14]["params"]["item"];
    assert_eq!(
        completed_message["text"],
        "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7 "
    );
    let usage = &messages[15]["params"]["tokenUsage"];
    assert_eq!(usage["last"]["inputTokens"], 100);
    assert_eq!(usage["last"]["outputTokens"], 8);
    let completed = &messages[17]["params"]["turn"];
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["itemsView"], "summary");
    assert_eq!(completed["items"], json!([completed_message]));
    assert!(
        messages
            .iter()
            .filter(|message| message.get("method").is_some())
            .all(|message| message["emittedAtMs"].is_i64())
    );

    // The model saw the instructions, the environment context and the user message.
    let request = &model.requests()[0];
    assert_eq!(request["model"], "mock-model");
    assert_eq!(request["stream"], true);
    assert_eq!(request["prompt_cache_key"], json!(thread_id));
    let input = request["input"].as_array().unwrap();
    assert!(
        input[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("<cwd>/tmp/project</cwd>")
    );
    assert_eq!(
        input.last().unwrap()["content"][0],
        json!({"type": "input_text", "text": "Say hello."})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn the_second_turn_sends_the_whole_conversation() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["first"])));
    model.push(MockResponse::sse(responses_text("msg_2", &["second"])));
    let (mut server, thread_id) = started_thread(&model).await;
    for text in ["one", "two"] {
        server
            .request(
                "turn/start",
                json!({"threadId": thread_id, "input": text_input(text)}),
            )
            .await
            .unwrap();
        server.until_turn_completed().await;
    }
    let second = &model.requests()[1]["input"];
    let texts: Vec<&str> = second
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item["content"][0]["text"].as_str())
        .collect();
    assert_eq!(&texts[1..], &["one", "first", "two"]);
    server.shutdown().await;
}

#[tokio::test]
async fn reasoning_streams_summary_and_raw_deltas() {
    let model = MockModel::start().await;
    let frames = ResponsesStream::new()
        .reasoning_summary("rs_8", &["think0 ", "think1 "])
        .reasoning_raw("rs_9", &["raw0 ", "raw1 "])
        .text("msg_3", &["done"])
        .frames();
    model.push(MockResponse::sse(frames));
    let (mut server, thread_id) = started_thread(&model).await;
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("think")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let summary: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "item/reasoning/summaryTextDelta")
        .collect();
    assert_eq!(summary.len(), 2);
    assert_eq!(summary[0]["params"]["summaryIndex"], 0);
    let raw: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "item/reasoning/textDelta")
        .collect();
    assert_eq!(raw.len(), 2);
    assert_eq!(raw[1]["params"]["contentIndex"], 0);
    let reasoning: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "item/completed" && m["params"]["item"]["type"] == "reasoning")
        .collect();
    assert_eq!(
        reasoning[0]["params"]["item"]["summary"],
        json!(["think0 think1 "])
    );
    assert_eq!(
        reasoning[1]["params"]["item"]["content"],
        json!(["raw0 raw1 "])
    );
    server.shutdown().await;
}

#[tokio::test]
async fn interrupt_mid_stream_ends_the_turn_as_interrupted() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_2", &token_deltas(50)));
    model.push(response);
    model.push(MockResponse::sse(responses_text("msg_3", &["after"])));
    let (mut server, thread_id) = started_thread(&model).await;
    let turn = server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("Long answer.")}),
        )
        .await
        .unwrap();
    let turn_id = turn["turn"]["id"].as_str().unwrap().to_string();
    gate.release(5);
    server.notification("item/agentMessage/delta").await;
    server.drain_backlog();

    let id = server
        .send_request(
            "turn/interrupt",
            json!({"threadId": thread_id, "turnId": turn_id}),
        )
        .await;
    let reply = server
        .take_matching(|message| message.get("id") == Some(&json!(id)))
        .await;
    assert_eq!(reply["result"], json!({}));
    let rest = server.until_turn_completed().await;
    let tail: Vec<String> = methods(&rest)
        .into_iter()
        .filter(|method| {
            method != "item/agentMessage/delta"
                && method != "item/started"
                && method != "item/completed"
        })
        .collect();
    assert_eq!(tail, vec!["thread/status/changed", "turn/completed"]);
    // The streaming message never completes.
    assert!(
        !rest
            .iter()
            .any(|m| m["method"] == "item/completed"
                && m["params"]["item"]["type"] == "agentMessage")
    );
    let completed = &rest.last().unwrap()["params"]["turn"];
    assert_eq!(completed["status"], "interrupted");
    assert_eq!(completed["items"], json!([]));
    assert_eq!(completed["error"], Value::Null);
    drop(gate);

    let error = server
        .request(
            "turn/interrupt",
            json!({"threadId": thread_id, "turnId": turn_id}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "no active turn to interrupt"})
    );
    // The thread takes a new turn.
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
    server.shutdown().await;
}

#[tokio::test]
async fn steer_abandons_the_stream_and_continues_the_same_turn() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &token_deltas(20)));
    model.push(response);
    model.push(MockResponse::sse(responses_text("msg_2", &["steered"])));
    let (mut server, thread_id) = started_thread(&model).await;
    let turn = server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("start")}),
        )
        .await
        .unwrap();
    let turn_id = turn["turn"]["id"].as_str().unwrap().to_string();
    gate.release(4);
    server.notification("item/agentMessage/delta").await;
    server.drain_backlog();

    let error = server
        .request(
            "turn/steer",
            json!({"threadId": thread_id, "input": text_input("x"), "expectedTurnId": "other"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        format!("expected active turn id `other` but found `{turn_id}`")
    );
    let result = server.request("turn/steer", json!({"threadId": thread_id, "input": text_input("change course"), "expectedTurnId": turn_id})).await.unwrap();
    assert_eq!(result, json!({"turnId": turn_id}));
    let messages = server.until_turn_completed().await;
    assert!(!methods(&messages).contains(&"turn/started".to_string()));
    let users: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "item/completed" && m["params"]["item"]["type"] == "userMessage")
        .collect();
    assert_eq!(
        users[0]["params"]["item"]["content"][0]["text"],
        "change course"
    );
    let completed = &messages.last().unwrap()["params"]["turn"];
    assert_eq!(completed["id"], json!(turn_id));
    assert_eq!(completed["items"][0]["text"], "steered");
    // The second request carries the new input after the original one.
    assert!(model.wait_for_requests(2, Duration::from_secs(5)).await);
    let second = model.requests()[1]["input"].to_string();
    assert!(second.contains("change course"));
    let error = server
        .request(
            "turn/steer",
            json!({"threadId": thread_id, "input": text_input("x"), "expectedTurnId": turn_id}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["message"], "no active turn to steer");
    drop(gate);
    server.shutdown().await;
}

#[tokio::test]
async fn turn_start_on_a_busy_thread_returns_the_running_turn() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &token_deltas(4)));
    model.push(response);
    model.push(MockResponse::sse(responses_text("msg_2", &["both"])));
    let (mut server, thread_id) = started_thread(&model).await;
    let first = server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("a")}),
        )
        .await
        .unwrap();
    gate.wait_requested(Duration::from_secs(5)).await;
    let second = server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("b")}),
        )
        .await
        .unwrap();
    assert_eq!(second["turn"]["id"], first["turn"]["id"]);
    let messages = server.until_turn_completed().await;
    let users = messages
        .iter()
        .filter(|m| m["method"] == "item/completed" && m["params"]["item"]["type"] == "userMessage")
        .count();
    assert_eq!(users, 2);
    drop(gate);
    server.shutdown().await;
}

#[tokio::test]
async fn http_500_is_retried_then_fails_the_turn() {
    let model = MockModel::start().await;
    for _ in 0..3 {
        model.push(MockResponse::error(500, "boom"));
    }
    let (mut server, thread_id) = started_thread(&model).await;
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("hi")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let errors: Vec<&Value> = messages.iter().filter(|m| m["method"] == "error").collect();
    // Two retries announced (request_max_retries = 2), then the final error.
    assert_eq!(
        errors
            .iter()
            .filter(|e| e["params"]["willRetry"] == true)
            .count(),
        2
    );
    let last = errors.last().unwrap();
    assert_eq!(last["params"]["willRetry"], false);
    assert_eq!(
        last["params"]["error"]["codexErrorInfo"],
        "internalServerError"
    );
    assert_eq!(
        last["params"]["error"]["message"],
        "We\u{2019}re currently experiencing high demand, which may cause temporary errors."
    );
    let tail: Vec<String> = methods(&messages).into_iter().rev().take(3).collect();
    assert_eq!(
        tail,
        vec!["turn/completed", "error", "thread/status/changed"]
    );
    let status = messages
        .iter()
        .rev()
        .find(|m| m["method"] == "thread/status/changed")
        .unwrap();
    assert_eq!(status["params"]["status"], json!({"type": "systemError"}));
    let turn = &messages.last().unwrap()["params"]["turn"];
    assert_eq!(turn["status"], "failed");
    assert_eq!(turn["error"]["codexErrorInfo"], "internalServerError");
    assert_eq!(model.request_count(), 3);
    server.shutdown().await;
}

#[tokio::test]
async fn a_retry_succeeds_after_a_transient_failure() {
    let model = MockModel::start().await;
    model.push(MockResponse::error(503, "busy"));
    model.push(MockResponse::sse(responses_text("msg_1", &["ok"])));
    let (mut server, thread_id) = started_thread(&model).await;
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("hi")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    assert_eq!(
        messages.iter().filter(|m| m["method"] == "error").count(),
        1
    );
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn response_failed_and_dropped_streams_fail_the_turn() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_failed("mock failure")));
    let mut frames = responses_text("msg_1", &token_deltas(6));
    frames.truncate(5);
    model.push(MockResponse::sse_then_drop(frames, 5));
    let (mut server, thread_id) = started_thread(&model).await;

    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("one")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let turn = &messages.last().unwrap()["params"]["turn"];
    assert_eq!(turn["status"], "failed");
    assert_eq!(
        turn["error"]["message"],
        "stream disconnected before completion: mock failure"
    );
    assert_eq!(turn["error"]["codexErrorInfo"], "other");

    // A stream that drops after output is not retried (the output was already shown).
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("two")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let turn = &messages.last().unwrap()["params"]["turn"];
    assert_eq!(turn["status"], "failed");
    assert!(
        turn["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("stream disconnected before completion")
    );
    assert_eq!(model.request_count(), 2);
    server.shutdown().await;
}

#[tokio::test]
async fn chat_completions_providers_stream_the_same_items() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(
        ChatStream::new().text(&["Hel", "lo"]).frames(),
    ));
    let config = format!(
        "model_provider = \"local\"\nmodel = \"qwen\"\n[model_providers.local]\nname = \"Local\"\nbase_url = \"{}\"\nwire_api = \"chat\"\n",
        model.base_url()
    );
    let mut server = TestServer::spawn(&config).await;
    server.initialize().await;
    let thread = server.request("thread/start", json!({})).await.unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("hi")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let deltas: Vec<&str> = messages
        .iter()
        .filter(|m| m["method"] == "item/agentMessage/delta")
        .map(|m| m["params"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, vec!["Hel", "lo"]);
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["items"][0]["text"],
        "Hello"
    );
    // The models endpoint is read too (for the context window); the model request is the
    // only POST.
    let received = model.received();
    let request = received
        .iter()
        .find(|request| request.method == "POST")
        .unwrap();
    assert!(
        request.path.ends_with("/chat/completions"),
        "{}",
        request.path
    );
    assert_eq!(request.body["messages"][0]["role"], "system");
    server.shutdown().await;
}

#[tokio::test]
async fn opted_out_notifications_are_not_sent() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &token_deltas(3))));
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server
        .initialize_with(
            json!({"optOutNotificationMethods": ["item/agentMessage/delta", "thread/started"]}),
        )
        .await;
    let thread = server
        .request("thread/start", json!({"ephemeral": true}))
        .await
        .unwrap();
    assert_eq!(thread["thread"]["ephemeral"], true);
    assert_eq!(thread["thread"]["path"], Value::Null);
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("hi")}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let all = methods(&messages);
    assert!(!all.contains(&"item/agentMessage/delta".to_string()));
    assert!(!all.contains(&"thread/started".to_string()));
    assert!(all.contains(&"item/completed".to_string()));
    // Ephemeral threads are never listed or written.
    let list = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(list["data"], json!([]));
    assert!(
        std::fs::read_dir(server.home.join("sessions"))
            .map(|dir| dir.count())
            .unwrap_or(0)
            == 0
    );
    server.shutdown().await;
}
