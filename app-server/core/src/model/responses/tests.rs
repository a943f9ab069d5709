//! Tests of the Responses API client against a local server: stream decoding, HTTP and
//! transport errors, and the request body and headers.

use std::collections::BTreeMap;

use app_server_protocol::policy::ReasoningEffort;
use app_server_protocol::thread::CodexErrorInfo;
use futures::StreamExt;
use pretty_assertions::assert_eq;

use super::*;
use crate::config::WireApi;
use crate::model::error::StatusError;
use crate::model::test_support::{Reply, TestServer, provider, responses_frame};
use crate::model::{ContentItem, ReasoningContentPart, ReasoningSummaryPart, ToolSpec};

fn request() -> ModelRequest {
    ModelRequest {
        model: "mock-model".to_string(),
        instructions: "You are a test.".to_string(),
        input: vec![ResponseItem::Message {
            id: None,
            role: "user".to_string(),
            content: vec![ContentItem::InputText {
                text: "Say hello.".to_string(),
            }],
        }],
        tools: vec![ToolSpec {
            name: "exec_command".to_string(),
            description: "Runs a command.".to_string(),
            parameters: json!({"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}),
        }],
        effort: None,
        summary: None,
        output_schema: None,
        thread_id: "thread-1".to_string(),
        turn_id: "turn-1".to_string(),
    }
}

fn created() -> String {
    responses_frame(json!({"type": "response.created", "response": {"id": "resp_1"}}))
}

fn completed() -> String {
    responses_frame(
        json!({"type": "response.completed", "response": {"id": "resp_1", "usage": {
        "input_tokens": 100, "input_tokens_details": {"cached_tokens": 40},
        "output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 3}, "total_tokens": 108}}}),
    )
}

fn usage_108() -> Option<TokenUsageBreakdown> {
    Some(TokenUsageBreakdown {
        total_tokens: 108,
        input_tokens: 100,
        cached_input_tokens: 40,
        cache_write_input_tokens: 0,
        output_tokens: 8,
        reasoning_output_tokens: 3,
    })
}

async fn run(replies: Vec<Reply>) -> (Vec<Result<ModelEvent, ModelError>>, TestServer) {
    let server = TestServer::start(replies).await;
    let client = ResponsesClient::new(&provider(&server.base_url, WireApi::Responses)).unwrap();
    let events = client.stream(request()).collect().await;
    (events, server)
}

async fn run_error(reply: Reply) -> ModelError {
    let (events, _server) = run(vec![reply]).await;
    match events.last() {
        Some(Err(error)) => error.clone(),
        other => panic!("expected an error, got {other:?}"),
    }
}

fn message(id: &str, text: &str) -> ResponseItem {
    ResponseItem::Message {
        id: Some(id.to_string()),
        role: "assistant".to_string(),
        content: if text.is_empty() {
            Vec::new()
        } else {
            vec![ContentItem::OutputText {
                text: text.to_string(),
            }]
        },
    }
}

#[tokio::test]
async fn text_stream() {
    let (events, _server) = run(vec![Reply::Sse(vec![
        created(),
        responses_frame(json!({"type": "response.in_progress", "response": {"id": "resp_1"}})),
        responses_frame(json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "message", "role": "assistant", "id": "msg_2", "status": "in_progress", "content": []}})),
        responses_frame(json!({"type": "response.output_text.delta", "item_id": "msg_2", "output_index": 0, "content_index": 0, "delta": "tok0 "})),
        responses_frame(json!({"type": "response.output_text.delta", "item_id": "msg_2", "output_index": 0, "content_index": 0, "delta": "tok1 "})),
        responses_frame(json!({"type": "response.output_text.done", "item_id": "msg_2", "text": "tok0 tok1 "})),
        responses_frame(json!({"type": "response.output_item.done", "output_index": 0,
            "item": {"type": "message", "role": "assistant", "id": "msg_2", "status": "completed",
                "content": [{"type": "output_text", "text": "tok0 tok1 ", "annotations": []}]}})),
        responses_frame(json!({"type": "response.output_item.done", "output_index": 1,
            "item": {"type": "web_search_call", "id": "ws_1"}})),
        completed(),
    ])])
    .await;
    assert_eq!(
        events,
        vec![
            Ok(ModelEvent::OutputItemAdded(message("msg_2", ""))),
            Ok(ModelEvent::OutputTextDelta {
                item_id: "msg_2".to_string(),
                delta: "tok0 ".to_string()
            }),
            Ok(ModelEvent::OutputTextDelta {
                item_id: "msg_2".to_string(),
                delta: "tok1 ".to_string()
            }),
            Ok(ModelEvent::OutputItemDone(message("msg_2", "tok0 tok1 "))),
            Ok(ModelEvent::Completed {
                response_id: "resp_1".to_string(),
                usage: usage_108()
            }),
        ]
    );
}

#[tokio::test]
async fn reasoning_summary_and_raw() {
    let (events, _server) = run(vec![Reply::Sse(vec![
        created(),
        responses_frame(json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_8", "summary": []}})),
        responses_frame(json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_8", "output_index": 0, "summary_index": 0})),
        responses_frame(json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_8", "output_index": 0, "summary_index": 0, "delta": "think0 "})),
        responses_frame(json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "reasoning", "id": "rs_8",
            "summary": [{"type": "summary_text", "text": "think0 "}], "encrypted_content": "opaque"}})),
        responses_frame(json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "reasoning", "id": "rs_90", "summary": []}})),
        responses_frame(json!({"type": "response.reasoning_text.delta", "item_id": "rs_90", "output_index": 1, "content_index": 0, "delta": "raw0 "})),
        responses_frame(json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "reasoning", "id": "rs_90",
            "summary": [], "content": [{"type": "reasoning_text", "text": "raw0 "}]}})),
        completed(),
    ])])
    .await;
    let reasoning = |id: &str| ResponseItem::Reasoning {
        id: id.to_string(),
        summary: Vec::new(),
        content: None,
        encrypted_content: None,
    };
    assert_eq!(
        events,
        vec![
            Ok(ModelEvent::OutputItemAdded(reasoning("rs_8"))),
            Ok(ModelEvent::ReasoningSummaryPartAdded {
                item_id: "rs_8".to_string(),
                summary_index: 0
            }),
            Ok(ModelEvent::ReasoningSummaryTextDelta {
                item_id: "rs_8".to_string(),
                summary_index: 0,
                delta: "think0 ".to_string()
            }),
            Ok(ModelEvent::OutputItemDone(ResponseItem::Reasoning {
                id: "rs_8".to_string(),
                summary: vec![ReasoningSummaryPart::SummaryText {
                    text: "think0 ".to_string()
                }],
                content: None,
                encrypted_content: Some("opaque".to_string()),
            })),
            Ok(ModelEvent::OutputItemAdded(reasoning("rs_90"))),
            Ok(ModelEvent::ReasoningTextDelta {
                item_id: "rs_90".to_string(),
                content_index: 0,
                delta: "raw0 ".to_string()
            }),
            Ok(ModelEvent::OutputItemDone(ResponseItem::Reasoning {
                id: "rs_90".to_string(),
                summary: Vec::new(),
                content: Some(vec![ReasoningContentPart::ReasoningText {
                    text: "raw0 ".to_string()
                }]),
                encrypted_content: None,
            })),
            Ok(ModelEvent::Completed {
                response_id: "resp_1".to_string(),
                usage: usage_108()
            }),
        ]
    );
}

#[tokio::test]
async fn function_call() {
    let arguments = r#"{"cmd": "for i in 1 2 3; do echo line$i; done", "yield_time_ms": 2000}"#;
    let (events, _server) = run(vec![Reply::Sse(vec![
        created(),
        responses_frame(json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "function_call", "id": "fc_4", "call_id": "call_5", "name": "exec_command", "arguments": "", "status": "in_progress"}})),
        responses_frame(json!({"type": "response.function_call_arguments.delta", "item_id": "fc_4", "delta": "{\"cmd\""})),
        responses_frame(json!({"type": "response.output_item.done", "output_index": 0,
            "item": {"type": "function_call", "id": "fc_4", "call_id": "call_5", "name": "exec_command", "arguments": arguments, "status": "completed"}})),
        completed(),
    ])])
    .await;
    let call = |arguments: &str| ResponseItem::FunctionCall {
        id: Some("fc_4".to_string()),
        call_id: "call_5".to_string(),
        name: "exec_command".to_string(),
        arguments: arguments.to_string(),
    };
    assert_eq!(
        events,
        vec![
            Ok(ModelEvent::OutputItemAdded(call(""))),
            Ok(ModelEvent::OutputItemDone(call(arguments))),
            Ok(ModelEvent::Completed {
                response_id: "resp_1".to_string(),
                usage: usage_108()
            }),
        ]
    );
}

#[tokio::test]
async fn long_stream() {
    let mut frames = vec![created()];
    frames.push(responses_frame(
        json!({"type": "response.output_item.added", "output_index": 0,
        "item": {"type": "message", "role": "assistant", "id": "msg_2", "content": []}}),
    ));
    // Several frames per chunk, as a fast server sends them.
    for batch in 0..2_000 {
        let chunk: String = (0..10)
            .map(|index| {
                responses_frame(json!({"type": "response.output_text.delta", "item_id": "msg_2",
                    "output_index": 0, "content_index": 0, "delta": format!("tok{} ", batch * 10 + index)}))
            })
            .collect();
        frames.push(chunk);
    }
    frames.push(completed());
    let (events, _server) = run(vec![Reply::Sse(frames)]).await;
    // Every delta arrives once, in order, and whole, however the frames were chunked; the
    // stream then completes. (Throughput is measured by `tandem-bench`, not here.)
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            Ok(ModelEvent::OutputTextDelta { item_id, delta }) => {
                assert_eq!(item_id, "msg_2");
                Some(delta.as_str())
            }
            _ => None,
        })
        .collect();
    let expected: Vec<String> = (0..20_000).map(|index| format!("tok{index} ")).collect();
    assert_eq!(deltas, expected);
    assert!(matches!(
        events.last(),
        Some(Ok(ModelEvent::Completed { .. }))
    ));
}

#[tokio::test]
async fn response_failed() {
    let error = run_error(Reply::Sse(vec![
        created(),
        responses_frame(
            json!({"type": "response.failed", "response": {"id": "resp_1",
            "error": {"code": "server_error", "message": "mock failure"}}}),
        ),
    ]))
    .await;
    assert_eq!(
        error,
        ModelError::ResponseFailed {
            code: Some("server_error".to_string()),
            message: "mock failure".to_string()
        }
    );
    assert!(!error.is_retryable());
    assert_eq!(
        error.to_turn_error().message,
        "stream disconnected before completion: mock failure"
    );
    assert_eq!(
        error.to_turn_error().codex_error_info,
        Some(CodexErrorInfo::Other)
    );

    let error = run_error(Reply::Sse(vec![
        created(),
        responses_frame(
            json!({"type": "response.incomplete", "response": {"id": "resp_1",
            "incomplete_details": {"reason": "max_output_tokens"}}}),
        ),
    ]))
    .await;
    assert_eq!(
        error,
        ModelError::ResponseFailed {
            code: Some("incomplete".to_string()),
            message: "incomplete response returned, reason: max_output_tokens".to_string(),
        }
    );
}

fn status_reply(status: u16, body: &str) -> Reply {
    Reply::Status {
        status,
        body: body.to_string(),
        headers: Vec::new(),
    }
}

#[tokio::test]
async fn http_errors() {
    let error = run_error(Reply::Status {
        status: 500,
        body: r#"{"error":{"message":"upstream exploded","code":null}}"#.to_string(),
        headers: vec![("retry-after".to_string(), "2".to_string())],
    })
    .await;
    assert_eq!(
        error,
        ModelError::Status(Box::new(StatusError {
            status: 500,
            message: "upstream exploded".to_string(),
            code: None,
            retry_after: Some(std::time::Duration::from_secs(2)),
            provider: "Mock".to_string(),
            model: "mock-model".to_string(),
            env_key: None,
        }))
    );
    assert!(error.is_retryable());
    let turn_error = error.to_turn_error();
    assert_eq!(
        turn_error.message,
        "We’re currently experiencing high demand, which may cause temporary errors."
    );
    assert_eq!(
        turn_error.codex_error_info,
        Some(CodexErrorInfo::InternalServerError)
    );

    let error = run_error(status_reply(
        401,
        r#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#,
    ))
    .await;
    assert!(!error.is_retryable());
    assert_eq!(
        error.to_turn_error().codex_error_info,
        Some(CodexErrorInfo::Unauthorized)
    );

    let error = run_error(status_reply(
        404,
        r#"{"error":{"message":"The model `mock-model` does not exist","code":"model_not_found"}}"#,
    ))
    .await;
    let turn_error = error.to_turn_error();
    assert_eq!(
        turn_error.codex_error_info,
        Some(CodexErrorInfo::ModelNotFound)
    );
    assert_eq!(
        turn_error.message,
        "model `mock-model` not found at provider Mock: The model `mock-model` does not exist"
    );

    let error = run_error(status_reply(400, r#"{"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}}"#)).await;
    assert_eq!(
        error.to_turn_error().codex_error_info,
        Some(CodexErrorInfo::ContextWindowExceeded)
    );

    let error = run_error(status_reply(400, "not json at all")).await;
    assert_eq!(
        error.to_turn_error().codex_error_info,
        Some(CodexErrorInfo::BadRequest)
    );
    assert!(matches!(error, ModelError::Status(ref status) if status.message == "not json at all"));
}

#[tokio::test]
async fn dropped_stream() {
    // The connection closes mid-body (chunked, without the final chunk).
    let (events, _server) = run(vec![Reply::SseThenDrop(vec![
        created(),
        responses_frame(
            json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "message", "role": "assistant", "id": "msg_2", "content": []}}),
        ),
    ])])
    .await;
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[0],
        Ok(ModelEvent::OutputItemAdded(message("msg_2", "")))
    );
    let Err(error) = &events[1] else {
        panic!("expected an error: {events:?}")
    };
    assert!(
        matches!(
            error,
            ModelError::StreamDisconnected {
                transport_error: Some(_),
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.is_retryable());
    let turn_error = error.to_turn_error();
    assert!(
        turn_error
            .message
            .starts_with("stream disconnected before completion: "),
        "{turn_error:?}"
    );
    assert_eq!(
        turn_error.codex_error_info,
        Some(CodexErrorInfo::ResponseStreamDisconnected {
            http_status_code: None
        })
    );

    // A body that closes before any event, while tools were offered, names the setting.
    let error = run_error(Reply::Sse(Vec::new())).await;
    assert_eq!(
        error,
        ModelError::StreamDisconnected {
            detail: "stream closed before response.completed (the provider closed the stream before any output while tools were offered; if its server cannot stream tool calls, set `stream = false` under `[model_providers.mock]` in config.toml)".to_string(),
            transport_error: None,
        }
    );

    // The body ends cleanly, but without `response.completed`.
    let error = run_error(Reply::Sse(vec![created()])).await;
    assert_eq!(
        error,
        ModelError::StreamDisconnected {
            detail: "stream closed before response.completed".to_string(),
            transport_error: None,
        }
    );
}

#[tokio::test]
async fn idle_timeout() {
    let server = TestServer::start(vec![Reply::SseThenStall(vec![created()])]).await;
    let mut config = provider(&server.base_url, WireApi::Responses);
    config.stream_idle_timeout_ms = 150;
    let client = ResponsesClient::new(&config).unwrap();
    let started = std::time::Instant::now();
    let events: Vec<_> = client.stream(request()).collect().await;
    assert_eq!(
        events,
        vec![Err(ModelError::IdleTimeout { timeout_ms: 150 })]
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(
        events[0].as_ref().unwrap_err().to_turn_error().message,
        "stream disconnected before completion: no data received for 150 ms"
    );
}

#[tokio::test]
async fn connection_refused() {
    // Bind and release a port, so nothing listens on it.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = ResponsesClient::new(&provider(
        &format!("http://127.0.0.1:{port}/v1"),
        WireApi::Responses,
    ))
    .unwrap();
    let events: Vec<_> = client.stream(request()).collect().await;
    assert_eq!(events.len(), 1);
    let Err(error) = &events[0] else {
        panic!("expected an error: {events:?}")
    };
    assert!(matches!(error, ModelError::Connection { .. }), "{error:?}");
    assert!(error.is_retryable());
    let turn_error = error.to_turn_error();
    assert_eq!(
        turn_error.codex_error_info,
        Some(CodexErrorInfo::HttpConnectionFailed {
            http_status_code: None
        })
    );
    assert!(turn_error.additional_details.is_some());
}

#[tokio::test]
async fn https_goes_through_rustls() {
    // A server that answers plain text to an https URL: the TLS handshake must be
    // attempted (and fail), which shows the crypto provider is installed.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let (mut socket, _) = listener.accept().await.unwrap();
        let _ = socket.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
    });
    let url = format!("https://127.0.0.1:{port}/v1");
    let client = ResponsesClient::new(&provider(&url, WireApi::Responses)).unwrap();
    let events: Vec<_> = client.stream(request()).collect().await;
    let [Err(ModelError::Connection { detail, .. })] = events.as_slice() else {
        panic!("expected a connection error: {events:?}");
    };
    assert!(detail.contains("corrupt message"), "{detail}");
}

#[tokio::test]
async fn request_body_and_headers() {
    let server = TestServer::start(vec![
        Reply::Sse(vec![completed()]),
        Reply::Sse(vec![completed()]),
    ])
    .await;
    let mut config = provider(&server.base_url, WireApi::Responses);
    config.http_headers = BTreeMap::from([("X-Extra".to_string(), "yes".to_string())]);
    let client = ResponsesClient::new(&config).unwrap();
    let events: Vec<_> = client.stream(request()).collect().await;
    assert_eq!(events.len(), 1);

    let mut with_reasoning = request();
    with_reasoning.effort = Some(ReasoningEffort::High);
    with_reasoning.summary = Some(ReasoningSummary::Auto);
    with_reasoning.output_schema = Some(json!({"type": "object"}));
    let _: Vec<_> = client.stream(with_reasoning).collect().await;

    let requests = server.requests();
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/responses");
    assert_eq!(requests[0].headers["accept"], "text/event-stream");
    assert_eq!(requests[0].headers["content-type"], "application/json");
    assert_eq!(requests[0].headers["x-extra"], "yes");
    assert!(!requests[0].headers.contains_key("authorization"));
    assert_eq!(
        requests[0].body,
        json!({
            "model": "mock-model",
            "instructions": "You are a test.",
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Say hello."}]}],
            "tools": [{"type": "function", "name": "exec_command", "description": "Runs a command.", "strict": false,
                "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}}],
            "tool_choice": "auto",
            "parallel_tool_calls": true,
            "store": false,
            "prompt_cache_key": "thread-1",
            "stream": true,
        })
    );
    let body = &requests[1].body;
    assert_eq!(
        body["reasoning"],
        json!({"effort": "high", "summary": "auto"})
    );
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(
        body["text"],
        json!({"format": {"type": "json_schema", "name": "codex_output_schema", "schema": {"type": "object"}, "strict": true}})
    );
}

#[tokio::test]
async fn missing_api_key() {
    let mut config = provider("http://127.0.0.1:9/v1", WireApi::Responses);
    config.env_key = Some("TANDEM_TEST_KEY_THAT_IS_NEVER_SET".to_string());
    let client = ResponsesClient::new(&config).unwrap();
    let events: Vec<_> = client.stream(request()).collect().await;
    assert_eq!(
        events,
        vec![Err(ModelError::MissingApiKey {
            provider: "Mock".to_string(),
            env_key: "TANDEM_TEST_KEY_THAT_IS_NEVER_SET".to_string(),
        })]
    );
}

#[tokio::test]
async fn list_models() {
    let server = TestServer::start(vec![
        Reply::Status {
            status: 200,
            body: r#"{"object":"list","data":[{"id":"a"},{"id":"b"}]}"#.to_string(),
            headers: Vec::new(),
        },
        status_reply(404, "no models endpoint"),
    ])
    .await;
    let client = ResponsesClient::new(&provider(&server.base_url, WireApi::Responses)).unwrap();
    assert_eq!(
        client.list_models().await.unwrap(),
        vec!["a".to_string(), "b".to_string()]
    );
    assert_eq!(
        client.list_models().await.unwrap(),
        vec!["configured-model".to_string()]
    );
    let requests = server.requests();
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("GET", "/v1/models")
    );
}

/// An index is a length the engine would grow a list to: one over the limit ends the stream
/// with an error naming it, whichever event and field carry it.
#[tokio::test]
async fn stream_indices_over_the_limit_end_the_stream() {
    let cases = [
        json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0, "summary_index": 4_000_000_000_u64}),
        json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 1025, "delta": "x"}),
        json!({"type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 4_000_000_000_u64, "delta": "x"}),
        json!({"type": "response.output_item.added", "output_index": 4_000_000_000_u64, "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
    ];
    let messages = [
        "model stream: summary_index 4000000000 exceeds the limit of 1024",
        "model stream: summary_index 1025 exceeds the limit of 1024",
        "model stream: content_index 4000000000 exceeds the limit of 1024",
        "model stream: output_index 4000000000 exceeds the limit of 1024",
    ];
    for (frame, message) in cases.into_iter().zip(messages) {
        let error = run_error(Reply::Sse(vec![
            created(),
            responses_frame(frame),
            completed(),
        ]))
        .await;
        assert_eq!(error.to_turn_error().message, message);
        assert!(!error.is_retryable());
    }
    // The limit itself is accepted.
    let (events, _server) = run(vec![Reply::Sse(vec![
        responses_frame(json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "summary_index": 1024})),
        completed(),
    ])])
    .await;
    assert_eq!(
        events[0],
        Ok(ModelEvent::ReasoningSummaryPartAdded {
            item_id: "rs_1".to_string(),
            summary_index: 1024
        })
    );
}

/// A body that never ends a line is refused once the line passes 16 MiB, not buffered whole.
#[tokio::test]
async fn an_endless_event_stream_line_ends_the_stream() {
    let line = format!(
        "data: {}",
        "x".repeat(crate::model::sse_parser::MAX_LINE_BYTES)
    );
    let error = run_error(Reply::Sse(vec![created(), line])).await;
    assert_eq!(
        error.to_turn_error().message,
        "model stream: an event-stream line exceeds the limit of 16 MiB"
    );
}

/// A non-streamed answer over 64 MiB is refused; with a `Content-Length`, before it is read.
#[tokio::test]
async fn a_non_streamed_answer_over_the_limit_is_refused() {
    let body = format!(
        "{{\"output\":[],\"padding\":\"{}\"}}",
        "x".repeat(crate::model::sse::MAX_ANSWER_BYTES)
    );
    let server = TestServer::start(vec![Reply::Status {
        status: 200,
        body,
        headers: Vec::new(),
    }])
    .await;
    let mut config = provider(&server.base_url, WireApi::Responses);
    config.stream = false;
    let client = ResponsesClient::new(&config).unwrap();
    let events: Vec<_> = client.stream(request()).collect().await;
    let Some(Err(error)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(
        error.to_turn_error().message,
        "model answer: the answer body exceeds the limit of 64 MiB"
    );
}
