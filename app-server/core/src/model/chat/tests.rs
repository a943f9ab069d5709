//! Tests of the Chat Completions client against a local SSE server: chunks decoded into model
//! events, failures, and the request body built from Responses-style history.

use futures::StreamExt;
use pretty_assertions::assert_eq;

use super::*;
use crate::config::WireApi;
use crate::model::ToolSpec;
use crate::model::test_support::{Reply, TestServer, chat_frame, provider};

fn user(text: &str) -> ResponseItem {
    ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![ContentItem::InputText {
            text: text.to_string(),
        }],
    }
}

fn request(input: Vec<ResponseItem>) -> ModelRequest {
    ModelRequest {
        model: "qwen".to_string(),
        instructions: "Base instructions.".to_string(),
        input,
        tools: Vec::new(),
        effort: None,
        summary: None,
        output_schema: None,
        thread_id: "thread-1".to_string(),
        turn_id: "turn-1".to_string(),
    }
}

/// Streams a one-message request (so ids start at 1) against `frames`.
async fn run(reply: Reply) -> Vec<Result<ModelEvent, ModelError>> {
    let server = TestServer::start(vec![reply]).await;
    let client = ChatClient::new(&provider(&server.base_url, WireApi::Chat)).unwrap();
    client.stream(request(vec![user("hi")])).collect().await
}

fn chunk(delta: Value, finish_reason: Option<&str>) -> String {
    chat_frame(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}),
    )
}

fn done() -> String {
    "data: [DONE]\n\n".to_string()
}

fn usage_chunk() -> String {
    chat_frame(
        json!({"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 8,
        "total_tokens": 108, "prompt_tokens_details": {"cached_tokens": 64}}}),
    )
}

fn usage_108() -> Option<TokenUsageBreakdown> {
    Some(TokenUsageBreakdown {
        total_tokens: 108,
        input_tokens: 100,
        cached_input_tokens: 64,
        cache_write_input_tokens: 0,
        output_tokens: 8,
        reasoning_output_tokens: 0,
    })
}

fn message(id: &str, text: Option<&str>) -> ResponseItem {
    ResponseItem::Message {
        id: Some(id.to_string()),
        role: "assistant".to_string(),
        content: text
            .map(|text| {
                vec![ContentItem::OutputText {
                    text: text.to_string(),
                }]
            })
            .unwrap_or_default(),
    }
}

fn call(call_id: &str, name: &str, arguments: &str) -> ResponseItem {
    ResponseItem::FunctionCall {
        id: None,
        call_id: call_id.to_string(),
        name: name.to_string(),
        arguments: arguments.to_string(),
    }
}

fn dispatched(call_id: &str, name: &str, arguments: &str) -> [Result<ModelEvent, ModelError>; 2] {
    [
        Ok(ModelEvent::OutputItemAdded(call(call_id, name, ""))),
        Ok(ModelEvent::OutputItemDone(call(call_id, name, arguments))),
    ]
}

fn completed(usage: Option<TokenUsageBreakdown>) -> Result<ModelEvent, ModelError> {
    Ok(ModelEvent::Completed {
        response_id: "chatcmpl-1".to_string(),
        usage,
    })
}

#[tokio::test]
async fn text_stream() {
    let events = run(Reply::Sse(vec![
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": "Hel"}), None),
        chunk(json!({"content": "lo"}), None),
        chunk(json!({}), Some("stop")),
        usage_chunk(),
        done(),
    ]))
    .await;
    assert_eq!(
        events,
        vec![
            Ok(ModelEvent::OutputItemAdded(message("msg_1", None))),
            Ok(ModelEvent::OutputTextDelta {
                item_id: "msg_1".to_string(),
                delta: "Hel".to_string()
            }),
            Ok(ModelEvent::OutputTextDelta {
                item_id: "msg_1".to_string(),
                delta: "lo".to_string()
            }),
            Ok(ModelEvent::OutputItemDone(message("msg_1", Some("Hello")))),
            completed(usage_108()),
        ]
    );
}

#[tokio::test]
async fn reasoning_then_text() {
    let events = run(Reply::Sse(vec![
        chunk(
            json!({"role": "assistant", "reasoning_content": "think "}),
            None,
        ),
        chunk(json!({"reasoning": "more"}), None),
        chunk(json!({"content": "Answer"}), None),
        chunk(json!({}), Some("stop")),
        done(),
    ]))
    .await;
    let reasoning_delta = |delta: &str| {
        Ok(ModelEvent::ReasoningTextDelta {
            item_id: "rs_1".to_string(),
            content_index: 0,
            delta: delta.to_string(),
        })
    };
    assert_eq!(
        events,
        vec![
            Ok(ModelEvent::OutputItemAdded(ResponseItem::Reasoning {
                id: "rs_1".to_string(),
                summary: Vec::new(),
                content: None,
                encrypted_content: None,
            })),
            reasoning_delta("think "),
            reasoning_delta("more"),
            Ok(ModelEvent::OutputItemDone(ResponseItem::Reasoning {
                id: "rs_1".to_string(),
                summary: Vec::new(),
                content: Some(vec![ReasoningContentPart::ReasoningText {
                    text: "think more".to_string()
                }]),
                encrypted_content: None,
            })),
            Ok(ModelEvent::OutputItemAdded(message("msg_2", None))),
            Ok(ModelEvent::OutputTextDelta {
                item_id: "msg_2".to_string(),
                delta: "Answer".to_string()
            }),
            Ok(ModelEvent::OutputItemDone(message("msg_2", Some("Answer")))),
            completed(None),
        ]
    );
}

#[tokio::test]
async fn tool_calls_in_fragments() {
    let events = run(Reply::Sse(vec![
        chunk(json!({"role": "assistant", "content": "Let me look."}), None),
        chunk(json!({"content": null, "tool_calls": [{"index": 0, "id": "call_abc", "type": "function",
            "function": {"name": "exec_command", "arguments": ""}}]}), None),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"cmd\":"}}]}), None),
        chunk(json!({"tool_calls": [{"index": 1, "id": "call_def", "type": "function",
            "function": {"name": "view_image", "arguments": "{\"path\":\"a.png\"}"}}]}), None),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"ls\"}"}}]}), None),
        chunk(json!({}), Some("tool_calls")),
        usage_chunk(),
        done(),
    ]))
    .await;
    let [first_added, first_done] = dispatched("call_abc", "exec_command", r#"{"cmd":"ls"}"#);
    let [second_added, second_done] = dispatched("call_def", "view_image", r#"{"path":"a.png"}"#);
    assert_eq!(
        events,
        vec![
            Ok(ModelEvent::OutputItemAdded(message("msg_1", None))),
            Ok(ModelEvent::OutputTextDelta {
                item_id: "msg_1".to_string(),
                delta: "Let me look.".to_string()
            }),
            Ok(ModelEvent::OutputItemDone(message(
                "msg_1",
                Some("Let me look.")
            ))),
            first_added,
            first_done,
            second_added,
            second_done,
            completed(usage_108()),
        ]
    );
}

#[tokio::test]
async fn whole_tool_calls_without_index_or_id() {
    // Ollama style: each call whole in one chunk, no `index`, no `id`, arguments as an
    // object; the stream ends without `[DONE]`.
    let events = run(Reply::Sse(vec![
        chunk(json!({"role": "assistant", "tool_calls": [{"function": {"name": "exec_command", "arguments": {"cmd": "ls"}}}]}), None),
        chunk(json!({"tool_calls": [{"function": {"name": "exec_command", "arguments": "{\"cmd\":\"pwd\"}"}}]}), None),
        chunk(json!({}), Some("stop")),
    ]))
    .await;
    let [first_added, first_done] = dispatched("call_1", "exec_command", r#"{"cmd":"ls"}"#);
    let [second_added, second_done] = dispatched("call_2", "exec_command", r#"{"cmd":"pwd"}"#);
    assert_eq!(
        events,
        vec![
            first_added,
            first_done,
            second_added,
            second_done,
            completed(None)
        ]
    );
}

#[tokio::test]
async fn done_without_finish_reason() {
    let events = run(Reply::Sse(vec![
        chunk(json!({"content": "Hi"}), None),
        chat_frame(
            json!({"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": "!"}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 8, "total_tokens": 108,
                "prompt_tokens_details": {"cached_tokens": 64}}}),
        ),
        done(),
    ]))
    .await;
    assert_eq!(
        events,
        vec![
            Ok(ModelEvent::OutputItemAdded(message("msg_1", None))),
            Ok(ModelEvent::OutputTextDelta {
                item_id: "msg_1".to_string(),
                delta: "Hi".to_string()
            }),
            Ok(ModelEvent::OutputTextDelta {
                item_id: "msg_1".to_string(),
                delta: "!".to_string()
            }),
            Ok(ModelEvent::OutputItemDone(message("msg_1", Some("Hi!")))),
            completed(usage_108()),
        ]
    );
}

#[tokio::test]
async fn failures() {
    let events = run(Reply::Sse(vec![
        chunk(json!({"content": "Hi"}), None),
        chat_frame(json!({"error": {"message": "model crashed", "code": "internal"}})),
    ]))
    .await;
    assert_eq!(
        events.last(),
        Some(&Err(ModelError::ResponseFailed {
            code: Some("internal".to_string()),
            message: "model crashed".to_string(),
        }))
    );

    let events = run(Reply::Sse(vec![chunk(json!({"content": "Hi"}), None)])).await;
    assert_eq!(
        events.last(),
        Some(&Err(ModelError::StreamDisconnected {
            detail: "stream closed before finish_reason or [DONE]".to_string(),
            transport_error: None,
        }))
    );

    let events = run(Reply::Sse(vec![
        chunk(json!({"tool_calls": [{"index": 0, "id": "call_abc", "function": {"name": "exec_command", "arguments": "{\"cmd\":"}}]}), None),
        chunk(json!({}), Some("length")),
        done(),
    ]))
    .await;
    assert!(
        matches!(events.last(), Some(Err(ModelError::ResponseFailed { code: Some(code), .. })) if code == "length"),
        "{events:?}"
    );

    let events = run(Reply::Status {
        status: 404,
        body: r#"{"error":{"message":"model \"qwen\" not found, try pulling it first"}}"#
            .to_string(),
        headers: Vec::new(),
    })
    .await;
    let Some(Err(error)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(
        error.to_turn_error().message,
        "model `qwen` not found at provider Mock: model \"qwen\" not found, try pulling it first"
    );
}

#[tokio::test]
async fn request_body() {
    let server = TestServer::start(vec![Reply::Sse(vec![
        chunk(json!({}), Some("stop")),
        done(),
    ])])
    .await;
    let client = ChatClient::new(&provider(&server.base_url, WireApi::Chat)).unwrap();
    let mut request = request(vec![
        ResponseItem::Message {
            id: None,
            role: "developer".to_string(),
            content: vec![ContentItem::InputText {
                text: "Sandbox: read-only.".to_string(),
            }],
        },
        user("<environment_context>cwd</environment_context>"),
        ResponseItem::Message {
            id: None,
            role: "user".to_string(),
            content: vec![
                ContentItem::InputText {
                    text: "What is in this image?".to_string(),
                },
                ContentItem::InputImage {
                    image_url: "data:image/png;base64,AAAA".to_string(),
                },
            ],
        },
        ResponseItem::Reasoning {
            id: "rs_1".to_string(),
            summary: Vec::new(),
            content: None,
            encrypted_content: Some("x".to_string()),
        },
        ResponseItem::Message {
            id: Some("msg_2".to_string()),
            role: "assistant".to_string(),
            content: vec![ContentItem::OutputText {
                text: "Looking.".to_string(),
            }],
        },
        ResponseItem::FunctionCall {
            id: None,
            call_id: "call_a".to_string(),
            name: "exec_command".to_string(),
            arguments: "{\"cmd\":\"ls\"}".to_string(),
        },
        ResponseItem::FunctionCall {
            id: None,
            call_id: "call_b".to_string(),
            name: "exec_command".to_string(),
            arguments: "{\"cmd\":\"pwd\"}".to_string(),
        },
        ResponseItem::FunctionCallOutput {
            call_id: "call_a".to_string(),
            output: "README.md".to_string(),
        },
        ResponseItem::FunctionCallOutput {
            call_id: "call_b".to_string(),
            output: "/tmp".to_string(),
        },
        ResponseItem::FunctionCall {
            id: None,
            call_id: "call_c".to_string(),
            name: "exec_command".to_string(),
            arguments: "{}".to_string(),
        },
        ResponseItem::FunctionCallOutput {
            call_id: "call_c".to_string(),
            output: "ok".to_string(),
        },
    ]);
    request.tools = vec![ToolSpec {
        name: "exec_command".to_string(),
        description: "Runs a command.".to_string(),
        parameters: json!({"type": "object"}),
    }];
    let events: Vec<_> = client.stream(request).collect().await;
    assert!(
        matches!(events.last(), Some(Ok(ModelEvent::Completed { .. }))),
        "{events:?}"
    );

    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/chat/completions");
    let exec = |id: &str, arguments: &str| json!({"id": id, "type": "function", "function": {"name": "exec_command", "arguments": arguments}});
    assert_eq!(
        requests[0].body,
        json!({
            "model": "qwen",
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "Base instructions.\n\nSandbox: read-only."},
                {"role": "user", "content": "<environment_context>cwd</environment_context>"},
                {"role": "user", "content": [
                    {"type": "text", "text": "What is in this image?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                ]},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    exec("call_a", "{\"cmd\":\"ls\"}"),
                    exec("call_b", "{\"cmd\":\"pwd\"}"),
                ]},
                {"role": "tool", "tool_call_id": "call_a", "content": "README.md"},
                {"role": "tool", "tool_call_id": "call_b", "content": "/tmp"},
                {"role": "assistant", "content": "", "tool_calls": [exec("call_c", "{}")]},
                {"role": "tool", "tool_call_id": "call_c", "content": "ok"},
            ],
            "tools": [{"type": "function", "function": {"name": "exec_command", "description": "Runs a command.", "parameters": {"type": "object"}}}],
            "tool_choice": "auto",
            "parallel_tool_calls": true,
        })
    );
}

/// `tool_calls[].index` is capped like the Responses indices, and so is the number of calls
/// (ids and array positions start calls without a new index).
#[tokio::test]
async fn tool_call_indices_and_counts_over_the_limit_end_the_stream() {
    let events = run(Reply::Sse(vec![
        chunk(json!({"tool_calls": [{"index": 4_000_000_000_u64, "id": "call_1", "function": {"name": "exec_command", "arguments": "{}"}}]}), None),
        chunk(json!({}), Some("tool_calls")),
        done(),
    ]))
    .await;
    let Some(Err(error)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(
        error.to_turn_error().message,
        "model stream: tool_calls index 4000000000 exceeds the limit of 1024"
    );

    let calls: Vec<Value> = (0..1025)
        .map(|number| json!({"index": 0, "id": format!("call_{number}"), "function": {"name": "exec_command", "arguments": "{}"}}))
        .collect();
    let events = run(Reply::Sse(vec![
        chunk(json!({"tool_calls": calls}), None),
        chunk(json!({}), Some("tool_calls")),
        done(),
    ]))
    .await;
    let Some(Err(error)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(
        error.to_turn_error().message,
        "model stream: the number of tool calls in one response exceeds the limit of 1024"
    );
}
