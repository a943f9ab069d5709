//! Context compaction (automatic, on request, after a context-length error, across a
//! restart) and providers with `stream = false`, end to end through the binary and the mock
//! model.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, methods, mock_config};

const SUMMARY_PREFIX: &str = "The conversation so far was compacted.";

fn text_input(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

async fn spawn(home: &Path, config_toml: String) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml,
        args: Vec::new(),
        home: Some(home.to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
}

async fn start_thread(server: &mut TestServer, cwd: &Path) -> String {
    let started = server
        .request("thread/start", json!({"cwd": cwd.to_string_lossy()}))
        .await
        .unwrap();
    started["thread"]["id"].as_str().unwrap().to_string()
}

/// Runs one turn and returns its messages.
async fn turn(server: &mut TestServer, thread_id: &str, prompt: &str) -> Vec<Value> {
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input(prompt)}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await
}

fn input_texts(request: &Value) -> Vec<String> {
    request["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            item["content"]
                .as_array()
                .map(|parts| {
                    parts
                        .iter()
                        .filter_map(|part| part["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("")
                })
                .unwrap_or_default()
        })
        .collect()
}

fn input_bytes(request: &Value) -> usize {
    request["input"].to_string().len()
}

fn completed_items<'a>(messages: &'a [Value], kind: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|message| message["method"] == "item/completed")
        .map(|message| &message["params"]["item"])
        .filter(|item| item["type"] == kind)
        .collect()
}

/// The server's estimate of a request: four bytes of JSON per token.
fn estimate(request: &Value) -> u64 {
    let bytes = request["instructions"].as_str().map_or(0, str::len)
        + request["input"].to_string().len()
        + request["tools"].to_string().len();
    bytes as u64 / 4
}

/// The estimated tokens of a first request with a two-letter question: instructions, tools
/// and the environment context.
async fn fixed_request_tokens(model: &MockModel) -> u64 {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut server = spawn(home.path(), mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    model.push(MockResponse::sse(responses_text("msg_0", &["ok"])));
    turn(&mut server, &thread_id, "hi").await;
    estimate(model.requests().last().unwrap())
}

#[tokio::test]
async fn a_thread_past_the_limit_compacts_and_resume_sees_the_compacted_history() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    // Each long question or answer is about 510 estimated tokens: the third request carries
    // about 2,550 of them above the fixed part (instructions and tools), the fourth about
    // 3,060, so a limit 2,800 above the fixed part is passed on the fourth request.
    let limit = fixed_request_tokens(&model).await + 2800;
    let config = format!(
        "model_auto_compact_token_limit = {limit}\ncompact_prompt = \"SUMMARISE NOW\"\n{}",
        mock_config(&model.base_url())
    );
    let mut server = spawn(home.path(), config.clone()).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    let long = "word ".repeat(400);
    for index in 0..3 {
        model.push(MockResponse::sse(responses_text(
            "msg_1",
            &[format!("answer {index} {long}")],
        )));
        let messages = turn(&mut server, &thread_id, &format!("question {index} {long}")).await;
        assert!(completed_items(&messages, "contextCompaction").is_empty());
    }
    let before = model.requests().last().unwrap().clone();

    model.push(MockResponse::sse(responses_text("msg_s", &["THE SUMMARY"])));
    model.push(MockResponse::sse(responses_text(
        "msg_4",
        &["fourth answer"],
    )));
    let messages = turn(&mut server, &thread_id, "question 3").await;
    let compactions = completed_items(&messages, "contextCompaction");
    assert_eq!(compactions.len(), 1, "{:?}", methods(&messages));
    assert!(
        messages
            .iter()
            .any(|message| message["method"] == "item/started"
                && message["params"]["item"]["type"] == "contextCompaction")
    );
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    let requests = model.requests();
    let summary_request = &requests[requests.len() - 2];
    assert_eq!(summary_request["tools"], json!([]));
    assert_eq!(
        input_texts(summary_request).last().unwrap(),
        "SUMMARISE NOW"
    );
    let after = &requests[requests.len() - 1];
    let texts = input_texts(after);
    assert!(
        texts
            .iter()
            .any(|text| text.starts_with(SUMMARY_PREFIX) && text.ends_with("THE SUMMARY"))
    );
    assert!(
        !texts.iter().any(|text| text.starts_with("answer 0")),
        "{texts:?}"
    );
    assert_eq!(texts.last().unwrap(), "question 3");
    assert!(input_bytes(after) < input_bytes(&before));
    assert_eq!(server.shutdown().await, Some(0));

    // After a restart the thread continues from the compacted history.
    let mut server = spawn(home.path(), config).await;
    server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    model.push(MockResponse::sse(responses_text("msg_5", &["fifth"])));
    turn(&mut server, &thread_id, "question 4").await;
    let texts = input_texts(model.requests().last().unwrap());
    assert!(texts.iter().any(|text| text.ends_with("THE SUMMARY")));
    assert!(!texts.iter().any(|text| text.starts_with("answer 0")));
    assert_eq!(&texts[texts.len() - 2..], ["fourth answer", "question 4"]);
}

#[tokio::test]
async fn compact_start_runs_a_turn_with_one_compaction_item() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn(home.path(), mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["first answer"],
    )));
    turn(&mut server, &thread_id, "first question").await;

    model.push(MockResponse::sse(responses_text(
        "msg_s",
        &["SUMMARY TEXT"],
    )));
    let response = server
        .request("thread/compact/start", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(response, json!({}));
    let messages = server.until_turn_completed().await;
    let kinds: Vec<String> = messages
        .iter()
        .filter(|message| {
            matches!(
                message["method"].as_str(),
                Some(
                    "turn/started"
                        | "item/started"
                        | "item/completed"
                        | "thread/compacted"
                        | "turn/completed"
                )
            )
        })
        .map(|message| {
            let item = message["params"]["item"]["type"].as_str().unwrap_or("");
            format!("{} {item}", message["method"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "turn/started ",
            "item/started contextCompaction",
            "item/completed contextCompaction",
            "thread/compacted ",
            "turn/completed "
        ]
    );
    let compacted = messages
        .iter()
        .find(|message| message["method"] == "thread/compacted")
        .unwrap();
    let started = messages
        .iter()
        .find(|message| message["method"] == "turn/started")
        .unwrap();
    assert_eq!(
        compacted["params"],
        json!({"threadId": thread_id, "turnId": started["params"]["turn"]["id"]})
    );
    model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["second answer"],
    )));
    turn(&mut server, &thread_id, "second question").await;
    let texts = input_texts(model.requests().last().unwrap());
    assert!(texts.contains(&"first question".to_string()));
    assert!(!texts.contains(&"first answer".to_string()));
    assert!(texts.iter().any(|text| text.ends_with("SUMMARY TEXT")));

    let error = server
        .request(
            "thread/compact/start",
            json!({"threadId": "01a1ffdb-89c2-76d0-a988-d9092305de2a"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "thread not found: 01a1ffdb-89c2-76d0-a988-d9092305de2a"
    );
}

#[tokio::test]
async fn a_context_length_error_compacts_and_retries_once() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn(home.path(), mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["first answer"],
    )));
    turn(&mut server, &thread_id, "first question").await;

    let too_long = json!({"error": {"message": "Your input exceeds the context window of this model.",
        "type": "invalid_request_error", "code": "context_length_exceeded"}});
    model.push(MockResponse::error_json(400, too_long.clone()));
    model.push(MockResponse::sse(responses_text(
        "msg_s",
        &["SHORT SUMMARY"],
    )));
    model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["second answer"],
    )));
    let messages = turn(&mut server, &thread_id, "second question").await;
    assert_eq!(completed_items(&messages, "contextCompaction").len(), 1);
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    let texts = input_texts(model.requests().last().unwrap());
    assert!(texts.iter().any(|text| text.ends_with("SHORT SUMMARY")));

    // A second context-length error after the compaction fails the turn.
    model.push(MockResponse::error_json(400, too_long.clone()));
    model.push(MockResponse::sse(responses_text(
        "msg_s2",
        &["SUMMARY AGAIN"],
    )));
    model.push(MockResponse::error_json(400, too_long));
    let messages = turn(&mut server, &thread_id, "third question").await;
    let completed = &messages.last().unwrap()["params"]["turn"];
    assert_eq!(completed["status"], "failed");
    assert_eq!(
        completed["error"]["codexErrorInfo"],
        "contextWindowExceeded"
    );
}

/// A provider `local` at `base_url` speaking `wire_api`, with `stream` when given.
fn local_config(base_url: &str, wire_api: &str, stream: Option<bool>) -> String {
    let stream = stream.map_or(String::new(), |stream| format!("stream = {stream}\n"));
    format!(
        "model_provider = \"local\"\nmodel = \"smollm2\"\napproval_policy = \"never\"\n\n[model_providers.local]\nbase_url = \"{base_url}\"\nwire_api = \"{wire_api}\"\nrequest_max_retries = 0\nstream_max_retries = 0\nstream_idle_timeout_ms = 5000\n{stream}"
    )
}

#[tokio::test]
async fn a_server_that_cannot_stream_tools_fails_with_the_setting_then_works_without_streaming() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    model.refuse_streamed_tools();

    let mut server = spawn(home.path(), local_config(&model.base_url(), "chat", None)).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    let messages = turn(&mut server, &thread_id, "hello").await;
    let completed = &messages.last().unwrap()["params"]["turn"];
    assert_eq!(completed["status"], "failed");
    let message = completed["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("stream disconnected before completion"),
        "{message}"
    );
    assert!(
        message.contains("`stream = false` under `[model_providers.local]`"),
        "{message}"
    );
    assert_eq!(server.shutdown().await, Some(0));

    // Chat Completions without streaming: a tool call, then the answer.
    let mut server = spawn(
        home.path(),
        local_config(&model.base_url(), "chat", Some(false)),
    )
    .await;
    let thread_id = start_thread(&mut server, work.path()).await;
    let plan = json!({"plan": [{"step": "look", "status": "in_progress"}]}).to_string();
    model.push(MockResponse::json(json!({
        "id": "chatcmpl-1", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "update_plan", "arguments": plan}}]}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
    })));
    model.push(MockResponse::json(json!({
        "id": "chatcmpl-2", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "All done."}}],
        "usage": {"prompt_tokens": 60, "completion_tokens": 3, "total_tokens": 63}
    })));
    let messages = turn(&mut server, &thread_id, "plan it").await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    assert!(
        messages
            .iter()
            .any(|message| message["method"] == "turn/plan/updated")
    );
    let deltas: Vec<&Value> = messages
        .iter()
        .filter(|message| message["method"] == "item/agentMessage/delta")
        .collect();
    assert_eq!(deltas.len(), 1);
    assert_eq!(deltas[0]["params"]["delta"], "All done.");
    assert_eq!(
        completed_items(&messages, "agentMessage")[0]["text"],
        "All done."
    );
    let requests = model.requests();
    let last = requests.last().unwrap();
    assert_eq!(last["stream"], false);
    assert!(last.get("stream_options").is_none());
    assert!(!last["tools"].as_array().unwrap().is_empty());
    assert_eq!(server.shutdown().await, Some(0));

    // The Responses API without streaming.
    let mut server = spawn(
        home.path(),
        local_config(&model.base_url(), "responses", Some(false)),
    )
    .await;
    let thread_id = start_thread(&mut server, work.path()).await;
    model.push(MockResponse::json(json!({
        "id": "resp_1", "object": "response", "status": "completed",
        "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Plain answer.", "annotations": []}]}],
        "usage": {"input_tokens": 40, "output_tokens": 2, "total_tokens": 42}
    })));
    let messages = turn(&mut server, &thread_id, "hi").await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    assert_eq!(
        completed_items(&messages, "agentMessage")[0]["text"],
        "Plain answer."
    );
    let usage = messages
        .iter()
        .find(|message| message["method"] == "thread/tokenUsage/updated")
        .unwrap();
    assert_eq!(usage["params"]["tokenUsage"]["last"]["inputTokens"], 40);
    assert_eq!(model.requests().last().unwrap()["stream"], false);
}

/// The `thread/tokenUsage/updated` payloads among `messages`, in order.
fn usage_updates(messages: &[Value]) -> Vec<&Value> {
    messages
        .iter()
        .filter(|message| message["method"] == "thread/tokenUsage/updated")
        .map(|message| &message["params"]["tokenUsage"])
        .collect()
}

#[tokio::test]
async fn a_thread_compacts_at_the_context_window_its_provider_reports() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    // No context key in the config: the limit comes from the window the models endpoint
    // reports (vLLM's `max_model_len`), 90% of it, placed as in the test above: passed on
    // the fourth request.
    let limit = fixed_request_tokens(&model).await + 2800;
    let window = limit * 10 / 9 + 1;
    model.set_model_entries(vec![
        json!({"id": "other-model", "object": "model", "max_model_len": 1000}),
        json!({"id": "mock-model", "object": "model", "max_model_len": window}),
    ]);
    let mut server = spawn(home.path(), mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    let long = "word ".repeat(400);
    let mut last_usage = Value::Null;
    for index in 0..3 {
        model.push(MockResponse::sse(responses_text(
            "msg_1",
            &[format!("answer {index} {long}")],
        )));
        let messages = turn(&mut server, &thread_id, &format!("question {index} {long}")).await;
        assert!(completed_items(&messages, "contextCompaction").is_empty());
        last_usage = usage_updates(&messages).last().copied().unwrap().clone();
    }
    assert_eq!(last_usage["modelContextWindow"], window);

    // The summary streams three deltas, the answer one: their usages differ.
    model.push(MockResponse::sse(responses_text(
        "msg_s",
        &["THE ", "SUMM", "ARY"],
    )));
    model.push(MockResponse::sse(responses_text(
        "msg_4",
        &["fourth answer"],
    )));
    let messages = turn(&mut server, &thread_id, "question 3").await;
    assert_eq!(
        completed_items(&messages, "contextCompaction").len(),
        1,
        "{:?}",
        methods(&messages)
    );
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    let texts = input_texts(model.requests().last().unwrap());
    assert!(texts.iter().any(|text| text.ends_with("THE SUMMARY")));

    // The summary request's usage is reported and counted in the total, then the answer's.
    let updates = usage_updates(&messages);
    assert_eq!(updates.len(), 2, "{updates:?}");
    let (summary, answer) = (updates[0], updates[1]);
    assert_eq!(summary["last"]["outputTokens"], 3);
    assert_eq!(answer["last"]["outputTokens"], 1);
    let total = |usage: &Value| usage["total"]["totalTokens"].as_i64().unwrap();
    let last = |usage: &Value| usage["last"]["totalTokens"].as_i64().unwrap();
    assert_eq!(total(summary), total(&last_usage) + last(summary));
    assert_eq!(total(answer), total(summary) + last(answer));
    assert_eq!(answer["modelContextWindow"], window);
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_provider_that_reports_no_window_means_no_automatic_compaction() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    // llama.cpp's server reports the window the model was trained with; another model's
    // window says nothing about this one.
    model.set_model_entries(vec![
        json!({"id": "other-model", "object": "model", "meta": {"n_ctx_train": 1000}}),
    ]);
    let mut server = spawn(home.path(), mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    let long = "word ".repeat(400);
    for index in 0..4 {
        model.push(MockResponse::sse(responses_text(
            "msg_1",
            &[format!("answer {index} {long}")],
        )));
        let messages = turn(&mut server, &thread_id, &format!("question {index} {long}")).await;
        assert!(completed_items(&messages, "contextCompaction").is_empty());
        assert_eq!(
            usage_updates(&messages).last().unwrap()["modelContextWindow"],
            Value::Null
        );
    }
    assert_eq!(
        requests_to(&model, "/v1/models"),
        1,
        "the models endpoint is read once per provider"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

/// Runs three long turns (no compaction expected), then a short fourth one, and returns the
/// fourth turn's messages: with a limit 2,800 estimated tokens above the fixed part of a
/// request, only the fourth request passes it.
async fn three_long_turns_then_one(
    server: &mut TestServer,
    model: &MockModel,
    thread_id: &str,
) -> Vec<Value> {
    let long = "word ".repeat(400);
    for index in 0..3 {
        model.push(MockResponse::sse(responses_text(
            "msg_1",
            &[format!("answer {index} {long}")],
        )));
        let messages = turn(server, thread_id, &format!("question {index} {long}")).await;
        assert!(completed_items(&messages, "contextCompaction").is_empty());
    }
    model.push(MockResponse::sse(responses_text("msg_s", &["THE SUMMARY"])));
    model.push(MockResponse::sse(responses_text(
        "msg_4",
        &["fourth answer"],
    )));
    turn(server, thread_id, "question 3").await
}

#[tokio::test]
async fn thread_config_overrides_of_the_compaction_keys_win_over_the_server_config() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let limit = fixed_request_tokens(&model).await + 2800;
    // The server's own window would never compact; each thread's override decides.
    let config = format!(
        "model_context_window = 1000000000\n{}",
        mock_config(&model.base_url())
    );
    let mut server = spawn(home.path(), config).await;
    let window = limit * 10 / 9 + 1;
    for (overrides, expected_window) in [
        (
            json!({"model_auto_compact_token_limit": limit}),
            1_000_000_000,
        ),
        (json!({"model_context_window": window}), window),
    ] {
        let started = server
            .request(
                "thread/start",
                json!({"cwd": work.path().to_string_lossy(), "config": overrides}),
            )
            .await
            .unwrap();
        let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
        let messages = three_long_turns_then_one(&mut server, &model, &thread_id).await;
        assert_eq!(
            completed_items(&messages, "contextCompaction").len(),
            1,
            "{overrides}: {:?}",
            methods(&messages)
        );
        let texts = input_texts(model.requests().last().unwrap());
        assert!(texts.iter().any(|text| text.ends_with("THE SUMMARY")));
        assert_eq!(
            usage_updates(&messages).last().unwrap()["modelContextWindow"],
            expected_window,
            "{overrides}"
        );
    }

    // A thread without overrides keeps the server's keys: no compaction.
    let thread_id = start_thread(&mut server, work.path()).await;
    let long = "word ".repeat(400);
    for index in 0..4 {
        model.push(MockResponse::sse(responses_text(
            "msg_1",
            &[format!("answer {index} {long}")],
        )));
        let messages = turn(&mut server, &thread_id, &format!("question {index} {long}")).await;
        assert!(completed_items(&messages, "contextCompaction").is_empty());
    }
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_thread_compacts_at_the_window_llama_cpp_reports_at_props() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    // Measured on another mock, whose reads of `/v1/models` and `/props` are not counted here.
    let limit = fixed_request_tokens(&MockModel::start().await).await + 2800;
    let window = limit * 10 / 9 + 1;
    // As llama.cpp's server: the models endpoint has only the window the model was trained
    // with, `/props` the one the server runs with (`--ctx-size`).
    model.set_model_entries(vec![
        json!({"id": "mock-model", "object": "model", "meta": {"n_ctx_train": 131072}}),
    ]);
    model.set_props(json!({
        "default_generation_settings": {"n_ctx": window, "params": {"n_predict": -1}},
        "total_slots": 1,
        "model_path": "/models/mock.gguf",
    }));
    let mut server = spawn(home.path(), mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    let messages = three_long_turns_then_one(&mut server, &model, &thread_id).await;
    assert_eq!(
        completed_items(&messages, "contextCompaction").len(),
        1,
        "{:?}",
        methods(&messages)
    );
    assert_eq!(
        usage_updates(&messages).last().unwrap()["modelContextWindow"],
        window
    );
    assert_eq!(requests_to(&model, "/v1/models"), 1);
    assert_eq!(
        requests_to(&model, "/props"),
        1,
        "`/props` is read once per provider"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn props_is_not_read_when_the_models_endpoint_reports_the_running_window() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    model.set_model_entries(vec![
        json!({"id": "mock-model", "object": "model", "max_model_len": 1_000_000}),
    ]);
    model.set_props(json!({"default_generation_settings": {"n_ctx": 10}}));
    let mut server = spawn(home.path(), mock_config(&model.base_url())).await;
    let thread_id = start_thread(&mut server, work.path()).await;
    model.push(MockResponse::sse(responses_text("msg_1", &["ok"])));
    let messages = turn(&mut server, &thread_id, "hi").await;
    assert_eq!(
        usage_updates(&messages).last().unwrap()["modelContextWindow"],
        1_000_000
    );
    assert_eq!(requests_to(&model, "/props"), 0);
    assert_eq!(server.shutdown().await, Some(0));
}

/// The text of the last input message of a request: the compaction prompt in a summary
/// request.
fn last_input_text(request: &Value) -> String {
    input_texts(request).last().cloned().unwrap_or_default()
}

/// Runs `thread/compact/start` on `thread_id` (the next mock answer is the summary) and
/// returns the summary request the model received.
async fn compact(server: &mut TestServer, model: &MockModel, thread_id: &str) -> Value {
    model.push(MockResponse::sse(responses_text("msg_s", &["THE SUMMARY"])));
    server
        .request("thread/compact/start", json!({"threadId": thread_id}))
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    assert_eq!(
        completed_items(&messages, "contextCompaction").len(),
        1,
        "{:?}",
        methods(&messages)
    );
    // Each compaction tells the user that detail was lost.
    let warnings: Vec<&Value> = messages
        .iter()
        .filter(|message| message["method"] == "warning")
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", methods(&messages));
    assert_eq!(warnings[0]["params"]["threadId"], thread_id);
    assert!(
        warnings[0]["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("The conversation was compacted into a summary."),
        "{}",
        warnings[0]
    );
    model.requests().last().unwrap().clone()
}

#[tokio::test]
async fn a_conversations_compact_prompt_asks_for_its_summaries_and_survives_a_restart() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn(home.path(), mock_config(&model.base_url())).await;
    let created = server
        .request(
            "newConversation",
            json!({"cwd": work.path().to_string_lossy(), "compactPrompt": "SUMMARISE-XYZ"}),
        )
        .await
        .unwrap();
    let conversation_id = created["conversationId"].as_str().unwrap().to_string();
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["first answer"],
    )));
    turn(&mut server, &conversation_id, "first question").await;
    let summary_request = compact(&mut server, &model, &conversation_id).await;
    assert_eq!(last_input_text(&summary_request), "SUMMARISE-XYZ");

    // A thread without one uses the built-in prompt.
    let thread_id = start_thread(&mut server, work.path()).await;
    model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["other answer"],
    )));
    turn(&mut server, &thread_id, "other question").await;
    let summary_request = compact(&mut server, &model, &thread_id).await;
    assert!(
        last_input_text(&summary_request).starts_with("You are handing this task over"),
        "{}",
        last_input_text(&summary_request)
    );
    server.shutdown().await;

    // After a restart the resumed conversation still has its prompt, over the config's.
    let config = format!(
        "compact_prompt = \"FROM CONFIG\"\n{}",
        mock_config(&model.base_url())
    );
    let mut server = spawn(home.path(), config).await;
    server
        .request("thread/resume", json!({"threadId": conversation_id}))
        .await
        .unwrap();
    let summary_request = compact(&mut server, &model, &conversation_id).await;
    assert_eq!(last_input_text(&summary_request), "SUMMARISE-XYZ");
    server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    let summary_request = compact(&mut server, &model, &thread_id).await;
    assert_eq!(last_input_text(&summary_request), "FROM CONFIG");
}

/// How many requests the mock model received on `path`.
fn requests_to(model: &MockModel, path: &str) -> usize {
    model
        .received()
        .iter()
        .filter(|request| request.path == path)
        .count()
}
