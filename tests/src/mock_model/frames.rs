//! The SSE frames the mock model streams, and builders for whole Responses and Chat
//! Completions streams.

use axum::body::Bytes;
use serde_json::{Value, json};

/// Input tokens reported by the frame builders' usage.
const MOCK_INPUT_TOKENS: u64 = 100;

/// One server-sent event, encoded (`event: …\ndata: …\n\n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseFrame(pub(super) Bytes);

/// Builds one Responses API stream from several output items, ending with
/// `response.completed` (or `response.failed`).
///
/// `output_index` counts the items; the usage is 100 input tokens and one output token per
/// delta (a function call counts one).
#[derive(Clone, Debug, Default)]
pub struct ResponsesStream {
    frames: Vec<SseFrame>,
    items: u64,
    output_tokens: u64,
}

/// Builds one Chat Completions stream: reasoning, text and tool calls, then the finish
/// chunk, a usage chunk and `[DONE]`.
#[derive(Clone, Debug, Default)]
pub struct ChatStream {
    frames: Vec<SseFrame>,
    tool_calls: u64,
    output_tokens: u64,
}

impl SseFrame {
    /// `event: <event>\ndata: <data>\n\n`.
    pub fn event(event: &str, data: &Value) -> SseFrame {
        SseFrame(Bytes::from(format!("event: {event}\ndata: {data}\n\n")))
    }

    /// A Responses API frame: the event name is `data.type`.
    pub fn responses(data: Value) -> SseFrame {
        let event = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message")
            .to_string();
        SseFrame::event(&event, &data)
    }

    /// A Chat Completions frame: `data: <data>\n\n`.
    pub fn data(data: &Value) -> SseFrame {
        SseFrame(Bytes::from(format!("data: {data}\n\n")))
    }

    /// `data: [DONE]\n\n`, the end of a Chat Completions stream.
    pub fn done() -> SseFrame {
        SseFrame(Bytes::from_static(b"data: [DONE]\n\n"))
    }

    /// Any text, sent as is (include the blank line that ends a frame).
    pub fn raw(text: impl Into<String>) -> SseFrame {
        SseFrame(Bytes::from(text.into()))
    }

    /// The encoded frame.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl ResponsesStream {
    /// An empty response.
    pub fn new() -> ResponsesStream {
        ResponsesStream::default()
    }

    /// An assistant message streamed as `deltas`.
    pub fn text<S: AsRef<str>>(mut self, msg_id: &str, deltas: &[S]) -> ResponsesStream {
        let index = self.next_index();
        let text: String = deltas.iter().map(AsRef::as_ref).collect();
        self.frames.push(SseFrame::responses(json!({
            "type": "response.output_item.added", "output_index": index,
            "item": {"type": "message", "role": "assistant", "id": msg_id, "status": "in_progress", "content": []},
        })));
        let id_json = json_string(msg_id);
        self.frames.reserve(deltas.len());
        for delta in deltas {
            // The hot path of long benchmark streams: format directly instead of building a
            // `Value` per delta.
            let delta_json = json_string(delta.as_ref());
            self.frames.push(SseFrame(Bytes::from(format!(
                "event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"item_id\":{id_json},\"output_index\":{index},\"content_index\":0,\"delta\":{delta_json}}}\n\n"
            ))));
        }
        self.output_tokens += deltas.len() as u64;
        self.frames.push(SseFrame::responses(json!({
            "type": "response.output_item.done", "output_index": index,
            "item": {"type": "message", "role": "assistant", "id": msg_id, "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]},
        })));
        self
    }

    /// A reasoning item whose summary is streamed as `deltas` (one summary part).
    pub fn reasoning_summary<S: AsRef<str>>(
        mut self,
        rs_id: &str,
        deltas: &[S],
    ) -> ResponsesStream {
        let index = self.next_index();
        let text: String = deltas.iter().map(AsRef::as_ref).collect();
        self.frames.push(SseFrame::responses(json!({
            "type": "response.output_item.added", "output_index": index,
            "item": {"type": "reasoning", "id": rs_id, "summary": []},
        })));
        self.frames.push(SseFrame::responses(json!({
            "type": "response.reasoning_summary_part.added", "item_id": rs_id, "output_index": index,
            "summary_index": 0, "part": {"type": "summary_text", "text": ""},
        })));
        for delta in deltas {
            self.frames.push(SseFrame::responses(json!({
                "type": "response.reasoning_summary_text.delta", "item_id": rs_id, "output_index": index,
                "summary_index": 0, "delta": delta.as_ref(),
            })));
        }
        self.output_tokens += deltas.len() as u64;
        self.frames.push(SseFrame::responses(json!({
            "type": "response.output_item.done", "output_index": index,
            "item": {"type": "reasoning", "id": rs_id, "summary": [{"type": "summary_text", "text": text}],
                "encrypted_content": format!("encrypted-{rs_id}")},
        })));
        self
    }

    /// A reasoning item whose raw content is streamed as `deltas`.
    pub fn reasoning_raw<S: AsRef<str>>(mut self, rs_id: &str, deltas: &[S]) -> ResponsesStream {
        let index = self.next_index();
        let text: String = deltas.iter().map(AsRef::as_ref).collect();
        self.frames.push(SseFrame::responses(json!({
            "type": "response.output_item.added", "output_index": index,
            "item": {"type": "reasoning", "id": rs_id, "summary": []},
        })));
        for delta in deltas {
            self.frames.push(SseFrame::responses(json!({
                "type": "response.reasoning_text.delta", "item_id": rs_id, "output_index": index,
                "content_index": 0, "delta": delta.as_ref(),
            })));
        }
        self.output_tokens += deltas.len() as u64;
        self.frames.push(SseFrame::responses(json!({
            "type": "response.output_item.done", "output_index": index,
            "item": {"type": "reasoning", "id": rs_id, "summary": [],
                "content": [{"type": "reasoning_text", "text": text}]},
        })));
        self
    }

    /// A function call; `arguments` is the JSON string of the arguments. The item id is
    /// `fc_<call_id>`.
    pub fn function_call(mut self, call_id: &str, name: &str, arguments: &str) -> ResponsesStream {
        let index = self.next_index();
        let item_id = format!("fc_{call_id}");
        self.frames.push(SseFrame::responses(json!({
            "type": "response.output_item.added", "output_index": index,
            "item": {"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
                "arguments": "", "status": "in_progress"},
        })));
        self.frames.push(SseFrame::responses(json!({
            "type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": index,
            "delta": arguments,
        })));
        self.frames.push(SseFrame::responses(json!({
            "type": "response.output_item.done", "output_index": index,
            "item": {"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
                "arguments": arguments, "status": "completed"},
        })));
        self.output_tokens += 1;
        self
    }

    /// Any extra frame (an unknown event, a keep-alive comment…).
    pub fn frame(mut self, frame: SseFrame) -> ResponsesStream {
        self.frames.push(frame);
        self
    }

    /// The frames: `response.created`, the items, `response.completed` with usage.
    pub fn frames(self) -> Vec<SseFrame> {
        let output_tokens = self.output_tokens;
        self.finish(json!({
            "type": "response.completed",
            "response": {"id": "resp_1", "status": "completed", "usage": {
                "input_tokens": MOCK_INPUT_TOKENS, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": MOCK_INPUT_TOKENS + output_tokens,
            }},
        }))
    }

    /// The frames, ending with `response.failed` carrying `message` (code `server_error`).
    pub fn failed(self, message: &str) -> Vec<SseFrame> {
        self.finish(json!({
            "type": "response.failed",
            "response": {"id": "resp_1", "status": "failed",
                "error": {"code": "server_error", "message": message}},
        }))
    }

    fn finish(self, last: Value) -> Vec<SseFrame> {
        let mut frames = Vec::with_capacity(self.frames.len() + 2);
        frames.push(SseFrame::responses(json!({
            "type": "response.created",
            "response": {"id": "resp_1", "status": "in_progress"},
        })));
        frames.extend(self.frames);
        frames.push(SseFrame::responses(last));
        frames
    }

    fn next_index(&mut self) -> u64 {
        self.items += 1;
        self.items - 1
    }
}

impl ChatStream {
    /// An empty response.
    pub fn new() -> ChatStream {
        ChatStream::default()
    }

    /// Reasoning streamed as `delta.reasoning_content`.
    pub fn reasoning<S: AsRef<str>>(mut self, deltas: &[S]) -> ChatStream {
        for delta in deltas {
            self.frames.push(chat_chunk(
                json!({"reasoning_content": delta.as_ref()}),
                None,
            ));
        }
        self.output_tokens += deltas.len() as u64;
        self
    }

    /// Assistant text streamed as `delta.content` (after a role chunk).
    pub fn text<S: AsRef<str>>(mut self, deltas: &[S]) -> ChatStream {
        self.frames.push(chat_chunk(
            json!({"role": "assistant", "content": ""}),
            None,
        ));
        self.frames.reserve(deltas.len());
        for delta in deltas {
            let delta_json = json_string(delta.as_ref());
            self.frames.push(SseFrame(Bytes::from(format!(
                "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{delta_json}}},\"finish_reason\":null}}]}}\n\n"
            ))));
        }
        self.output_tokens += deltas.len() as u64;
        self
    }

    /// A tool call in fragments: id and name first, then the arguments in two pieces.
    pub fn tool_call(mut self, call_id: &str, name: &str, arguments: &str) -> ChatStream {
        let index = self.tool_calls;
        self.tool_calls += 1;
        let middle = (0..=arguments.len() / 2)
            .rev()
            .find(|cut| arguments.is_char_boundary(*cut))
            .unwrap_or(0);
        let (first, second) = arguments.split_at(middle);
        self.frames.push(chat_chunk(
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": index, "id": call_id,
                "type": "function", "function": {"name": name, "arguments": ""}}]}),
            None,
        ));
        for piece in [first, second] {
            self.frames.push(chat_chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                None,
            ));
        }
        self.output_tokens += 1;
        self
    }

    /// Any extra frame.
    pub fn frame(mut self, frame: SseFrame) -> ChatStream {
        self.frames.push(frame);
        self
    }

    /// The frames: the content, the finish chunk (`tool_calls` when there are calls, else
    /// `stop`), a usage chunk, `[DONE]`.
    pub fn frames(mut self) -> Vec<SseFrame> {
        let finish_reason = if self.tool_calls > 0 {
            "tool_calls"
        } else {
            "stop"
        };
        self.frames.push(chat_chunk(json!({}), Some(finish_reason)));
        self.frames.push(SseFrame::data(&json!({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [],
            "usage": {"prompt_tokens": MOCK_INPUT_TOKENS, "completion_tokens": self.output_tokens,
                "total_tokens": MOCK_INPUT_TOKENS + self.output_tokens},
        })));
        self.frames.push(SseFrame::done());
        self.frames
    }
}

/// A complete Responses stream with one assistant message streamed as `deltas`; usage is 100
/// input tokens and `deltas.len()` output tokens.
pub fn responses_text<S: AsRef<str>>(msg_id: &str, deltas: &[S]) -> Vec<SseFrame> {
    ResponsesStream::new().text(msg_id, deltas).frames()
}

/// A complete Responses stream with one reasoning item whose summary is streamed as `deltas`.
pub fn responses_reasoning_summary<S: AsRef<str>>(rs_id: &str, deltas: &[S]) -> Vec<SseFrame> {
    ResponsesStream::new()
        .reasoning_summary(rs_id, deltas)
        .frames()
}

/// A complete Responses stream with one reasoning item whose raw text is streamed as `deltas`.
pub fn responses_reasoning_raw<S: AsRef<str>>(rs_id: &str, deltas: &[S]) -> Vec<SseFrame> {
    ResponsesStream::new().reasoning_raw(rs_id, deltas).frames()
}

/// A complete Responses stream with one function call.
pub fn responses_function_call(call_id: &str, name: &str, arguments: &str) -> Vec<SseFrame> {
    ResponsesStream::new()
        .function_call(call_id, name, arguments)
        .frames()
}

/// `response.created` then `response.failed` with `message`.
pub fn responses_failed(message: &str) -> Vec<SseFrame> {
    ResponsesStream::new().failed(message)
}

/// A complete Chat Completions stream with text streamed as `deltas`.
pub fn chat_text<S: AsRef<str>>(deltas: &[S]) -> Vec<SseFrame> {
    ChatStream::new().text(deltas).frames()
}

/// A complete Chat Completions stream with one tool call in fragments.
pub fn chat_tool_call(call_id: &str, name: &str, arguments: &str) -> Vec<SseFrame> {
    ChatStream::new()
        .tool_call(call_id, name, arguments)
        .frames()
}

/// `count` word-sized deltas, `tok0 ` to `tok<count-1> ` (for long streams).
pub fn token_deltas(count: usize) -> Vec<String> {
    (0..count).map(|index| format!("tok{index} ")).collect()
}

/// A chat chunk with one choice.
fn chat_chunk(delta: Value, finish_reason: Option<&str>) -> SseFrame {
    SseFrame::data(&json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_795_294_084, "model": "mock-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }))
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    Value::from(text).to_string()
}
