//! Chat Completions client (streaming SSE), as in `spec/model-wire.md` §4.
//!
//! The engine keeps Responses-style history; this client converts it to chat messages at the
//! edge, and turns the chat chunk stream back into the event sequence a Responses stream would
//! produce: synthesised `msg_<n>` / `rs_<n>` / `call_<n>` ids, `OutputItemAdded` on the first
//! delta, deltas, `OutputItemDone`, then `Completed`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use app_server_protocol::thread::TokenUsageBreakdown;
use eventsource_stream::Event;
use serde_json::{Map, Value, json};

use crate::config::ProviderConfig;
use crate::model::sse::{Flow, HttpProvider, SseDecoder, error_fields, sse_model_stream};
use crate::model::{
    ContentItem, ModelClient, ModelError, ModelEvent, ModelListFuture, ModelRequest, ModelStream,
    ReasoningContentPart, ResponseItem,
};

/// Client for `POST {base_url}/chat/completions`.
pub struct ChatClient {
    http: Arc<HttpProvider>,
}

impl ChatClient {
    /// Builds a client for `provider`.
    pub fn new(provider: &ProviderConfig) -> Result<Self, ModelError> {
        Ok(Self {
            http: Arc::new(HttpProvider::new(provider)?),
        })
    }
}

impl ModelClient for ChatClient {
    fn stream(&self, request: ModelRequest) -> ModelStream {
        let body = request_body(&request);
        // Ids are numbered from the request's position in the conversation, so they are
        // stable for a given history and do not repeat within a thread.
        let decoder = ChatDecoder::new(request.input.len());
        sse_model_stream(
            self.http.clone(),
            "chat/completions",
            request.model,
            body,
            decoder,
        )
    }

    fn list_models(&self) -> ModelListFuture<'_> {
        Box::pin(async { Ok(self.http.list_models().await) })
    }
}

/// The JSON body of `POST /chat/completions` (§4.1).
fn request_body(request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    body.insert("messages".into(), Value::Array(messages(request)));
    // Local servers reject `tool_choice` without tools, so send the tool fields only when
    // there are tools.
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    }
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), json!("auto"));
        body.insert("parallel_tool_calls".into(), json!(true));
    }
    if let Some(effort) = request.effort {
        body.insert("reasoning_effort".into(), json!(effort));
    }
    if let Some(schema) = &request.output_schema {
        body.insert(
            "response_format".into(),
            json!({
                "type": "json_schema",
                "json_schema": {"name": "codex_output_schema", "schema": schema, "strict": true},
            }),
        );
    }
    Value::Object(body)
}

/// Converts the Responses-style history into chat messages.
fn messages(request: &ModelRequest) -> Vec<Value> {
    // Many chat templates accept one system message only, at the start: merge the
    // instructions and every developer message into it.
    let mut system: Vec<String> = Vec::new();
    if !request.instructions.is_empty() {
        system.push(request.instructions.clone());
    }
    for item in &request.input {
        if let ResponseItem::Message { role, content, .. } = item
            && role == "developer"
        {
            system.push(text_of(content));
        }
    }
    let mut messages = Vec::new();
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system.join("\n\n")}));
    }
    for item in &request.input {
        match item {
            ResponseItem::Message { role, content, .. } => match role.as_str() {
                "developer" => {}
                "assistant" => {
                    messages.push(json!({"role": "assistant", "content": text_of(content)}));
                }
                _ => messages.push(json!({"role": role, "content": user_content(content)})),
            },
            ResponseItem::FunctionCall {
                call_id,
                name,
                arguments,
                ..
            } => push_tool_call(&mut messages, call_id, name, arguments.clone()),
            ResponseItem::CustomToolCall {
                call_id,
                name,
                input,
                ..
            } => {
                // Chat has no freeform tools; present the call as a JSON function call.
                let arguments = json!({"input": input}).to_string();
                push_tool_call(&mut messages, call_id, name, arguments);
            }
            ResponseItem::FunctionCallOutput { call_id, output }
            | ResponseItem::CustomToolCallOutput { call_id, output } => {
                messages.push(json!({"role": "tool", "tool_call_id": call_id, "content": output}));
            }
            ResponseItem::Reasoning { .. } => {}
        }
    }
    messages
}

/// The text parts of a message, joined.
fn text_of(content: &[ContentItem]) -> String {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|part| match part {
            ContentItem::InputText { text } | ContentItem::OutputText { text } => {
                Some(text.as_str())
            }
            ContentItem::InputImage { .. } => None,
        })
        .collect();
    texts.join("\n\n")
}

/// A user message's content: a string, or parts when it has images.
fn user_content(content: &[ContentItem]) -> Value {
    let has_image = content
        .iter()
        .any(|part| matches!(part, ContentItem::InputImage { .. }));
    if !has_image {
        return json!(text_of(content));
    }
    let parts: Vec<Value> = content
        .iter()
        .map(|part| match part {
            ContentItem::InputText { text } | ContentItem::OutputText { text } => {
                json!({"type": "text", "text": text})
            }
            ContentItem::InputImage { image_url } => {
                json!({"type": "image_url", "image_url": {"url": image_url}})
            }
        })
        .collect();
    Value::Array(parts)
}

/// Appends a tool call to the preceding assistant message, or starts one: consecutive calls
/// (and the text the model wrote before them) belong to one assistant turn.
fn push_tool_call(messages: &mut Vec<Value>, call_id: &str, name: &str, arguments: String) {
    let call = json!({
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    });
    if let Some(last) = messages.last_mut()
        && last.get("role").and_then(Value::as_str) == Some("assistant")
        && let Some(message) = last.as_object_mut()
    {
        match message.get_mut("tool_calls").and_then(Value::as_array_mut) {
            Some(calls) => calls.push(call),
            None => {
                message.insert("tool_calls".into(), json!([call]));
            }
        }
        return;
    }
    messages.push(json!({"role": "assistant", "content": null, "tool_calls": [call]}));
}

/// An assistant message or reasoning item being streamed.
struct OpenText {
    id: String,
    text: String,
}

/// A tool call being accumulated from fragments.
#[derive(Default)]
struct ToolCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// The robust chunk parser of §4.2.
struct ChatDecoder {
    /// The next number for a synthesised id.
    next_id: usize,
    response_id: Option<String>,
    reasoning: Option<OpenText>,
    message: Option<OpenText>,
    calls: Vec<ToolCall>,
    /// Call slot of each explicit `index`.
    slots_by_index: HashMap<u64, usize>,
    /// Call slot of each array position, for servers that omit `index`.
    slots_by_position: HashMap<usize, usize>,
    /// A `finish_reason` arrived and the items were completed.
    items_done: bool,
    usage: Option<TokenUsageBreakdown>,
}

impl ToolCall {
    /// Whether the call has a name and its arguments are a whole JSON value.
    fn is_complete(&self) -> bool {
        !self.name.is_empty() && serde_json::from_str::<Value>(&self.arguments).is_ok()
    }
}

impl ChatDecoder {
    fn new(first_id: usize) -> Self {
        Self {
            next_id: first_id,
            response_id: None,
            reasoning: None,
            message: None,
            calls: Vec::new(),
            slots_by_index: HashMap::new(),
            slots_by_position: HashMap::new(),
            items_done: false,
            usage: None,
        }
    }

    fn new_id(&mut self, prefix: &str) -> String {
        let id = format!("{prefix}_{}", self.next_id);
        self.next_id += 1;
        id
    }

    fn on_chunk(
        &mut self,
        chunk: &Value,
        out: &mut VecDeque<ModelEvent>,
    ) -> Result<(), ModelError> {
        if let Some(error) = chunk.get("error").filter(|error| !error.is_null()) {
            let (message, code) = error_fields(error);
            return Err(ModelError::ResponseFailed {
                code,
                message: message.unwrap_or_else(|| "error frame".to_string()),
            });
        }
        if self.response_id.is_none()
            && let Some(id) = chunk.get("id").and_then(Value::as_str)
        {
            self.response_id = Some(id.to_string());
        }
        if let Some(usage) = chunk.get("usage").and_then(usage) {
            self.usage = Some(usage);
        }
        let Some(choices) = chunk.get("choices").and_then(Value::as_array) else {
            return Ok(());
        };
        // Only the first choice is used (we never ask for `n > 1`).
        let Some(choice) = choices
            .iter()
            .find(|choice| choice.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        else {
            return Ok(());
        };
        if !self.items_done
            && let Some(delta) = choice.get("delta")
        {
            self.on_delta(delta, out);
        }
        match choice.get("finish_reason").and_then(Value::as_str) {
            Some(reason) if !self.items_done => self.finish_items(reason, out),
            _ => Ok(()),
        }
    }

    fn on_delta(&mut self, delta: &Value, out: &mut VecDeque<ModelEvent>) {
        let reasoning = ["reasoning_content", "reasoning"]
            .iter()
            .find_map(|key| delta.get(key).and_then(Value::as_str))
            .filter(|text| !text.is_empty());
        if let Some(text) = reasoning {
            if self.reasoning.is_none() {
                let id = self.new_id("rs");
                out.push_back(ModelEvent::OutputItemAdded(ResponseItem::Reasoning {
                    id: id.clone(),
                    summary: Vec::new(),
                    content: None,
                    encrypted_content: None,
                }));
                self.reasoning = Some(OpenText {
                    id,
                    text: String::new(),
                });
            }
            if let Some(reasoning) = &mut self.reasoning {
                reasoning.text.push_str(text);
                out.push_back(ModelEvent::ReasoningTextDelta {
                    item_id: reasoning.id.clone(),
                    content_index: 0,
                    delta: text.to_string(),
                });
            }
        }
        if let Some(text) = delta
            .get("content")
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
        {
            // Reasoning precedes the answer, as in a Responses stream.
            self.close_reasoning(out);
            if self.message.is_none() {
                let id = self.new_id("msg");
                out.push_back(ModelEvent::OutputItemAdded(ResponseItem::Message {
                    id: Some(id.clone()),
                    role: "assistant".to_string(),
                    content: Vec::new(),
                }));
                self.message = Some(OpenText {
                    id,
                    text: String::new(),
                });
            }
            if let Some(message) = &mut self.message {
                message.text.push_str(text);
                out.push_back(ModelEvent::OutputTextDelta {
                    item_id: message.id.clone(),
                    delta: text.to_string(),
                });
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.on_tool_call_fragment(position, call);
            }
        }
    }

    fn on_tool_call_fragment(&mut self, position: usize, fragment: &Value) {
        let id = fragment
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let function = fragment.get("function");
        let name = function
            .and_then(|function| function.get("name"))
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty());
        let slot = self.slot_for(
            fragment.get("index").and_then(Value::as_u64),
            position,
            id,
            name.is_some(),
        );
        let call = &mut self.calls[slot];
        if call.id.is_none() {
            call.id = id.map(str::to_string);
        }
        if call.name.is_empty()
            && let Some(name) = name
        {
            call.name = name.to_string();
        }
        match function.and_then(|function| function.get("arguments")) {
            Some(Value::String(arguments)) => call.arguments.push_str(arguments),
            // Some servers send the arguments as an object rather than a JSON string.
            Some(arguments @ (Value::Object(_) | Value::Array(_))) => {
                call.arguments = arguments.to_string();
            }
            _ => {}
        }
    }

    /// Which accumulated call a fragment belongs to.
    fn slot_for(
        &mut self,
        index: Option<u64>,
        position: usize,
        id: Option<&str>,
        has_name: bool,
    ) -> usize {
        if let Some(index) = index {
            if let Some(slot) = self.slots_by_index.get(&index).copied() {
                // A different id at a known index is a new call from a server that numbers
                // every whole call 0.
                let other_call = matches!(
                    (id, self.calls[slot].id.as_deref()),
                    (Some(new), Some(old)) if new != old
                );
                if !other_call {
                    return slot;
                }
            }
            let slot = self.new_call();
            self.slots_by_index.insert(index, slot);
            return slot;
        }
        if let Some(id) = id
            && let Some(slot) = self
                .calls
                .iter()
                .position(|call| call.id.as_deref() == Some(id))
        {
            return slot;
        }
        // Without an index, a fragment that names a call starts a new one when the call at
        // its array position is already complete (servers that send each call whole);
        // otherwise it continues the call at its array position.
        let starts_call = id.is_some() || has_name;
        match self.slots_by_position.get(&position) {
            Some(slot) if !starts_call || !self.calls[*slot].is_complete() => *slot,
            _ => {
                let slot = self.new_call();
                self.slots_by_position.insert(position, slot);
                slot
            }
        }
    }

    fn new_call(&mut self) -> usize {
        self.calls.push(ToolCall::default());
        self.calls.len() - 1
    }

    fn close_reasoning(&mut self, out: &mut VecDeque<ModelEvent>) {
        if let Some(reasoning) = self.reasoning.take() {
            out.push_back(ModelEvent::OutputItemDone(ResponseItem::Reasoning {
                id: reasoning.id,
                summary: Vec::new(),
                content: Some(vec![ReasoningContentPart::ReasoningText {
                    text: reasoning.text,
                }]),
                encrypted_content: None,
            }));
        }
    }

    /// Completes the open items and dispatches the tool calls.
    fn finish_items(
        &mut self,
        reason: &str,
        out: &mut VecDeque<ModelEvent>,
    ) -> Result<(), ModelError> {
        self.items_done = true;
        if reason == "length" {
            let truncated_call = self
                .calls
                .iter()
                .any(|call| serde_json::from_str::<Value>(&call.arguments).is_err());
            if truncated_call {
                return Err(ModelError::ResponseFailed {
                    code: Some("length".to_string()),
                    message: "the model's output was truncated (finish_reason `length`) in the middle of a tool call".to_string(),
                });
            }
            tracing::warn!("the model's output was truncated (finish_reason `length`)");
        }
        self.close_reasoning(out);
        if let Some(message) = self.message.take() {
            out.push_back(ModelEvent::OutputItemDone(ResponseItem::Message {
                id: Some(message.id),
                role: "assistant".to_string(),
                content: vec![ContentItem::OutputText { text: message.text }],
            }));
        }
        for call in std::mem::take(&mut self.calls) {
            let call_id = match call.id {
                Some(id) => id,
                None => self.new_id("call"),
            };
            let arguments = if call.arguments.trim().is_empty() {
                "{}".to_string()
            } else {
                call.arguments
            };
            out.push_back(ModelEvent::OutputItemAdded(ResponseItem::FunctionCall {
                id: None,
                call_id: call_id.clone(),
                name: call.name.clone(),
                arguments: String::new(),
            }));
            out.push_back(ModelEvent::OutputItemDone(ResponseItem::FunctionCall {
                id: None,
                call_id,
                name: call.name,
                arguments,
            }));
        }
        Ok(())
    }

    fn completed(&mut self, out: &mut VecDeque<ModelEvent>) {
        out.push_back(ModelEvent::Completed {
            response_id: self.response_id.take().unwrap_or_default(),
            usage: self.usage.take(),
        });
    }
}

impl SseDecoder for ChatDecoder {
    fn on_event(
        &mut self,
        event: Event,
        out: &mut VecDeque<ModelEvent>,
    ) -> Result<Flow, ModelError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            if !self.items_done {
                self.finish_items("stop", out)?;
            }
            self.completed(out);
            return Ok(Flow::Complete);
        }
        match serde_json::from_str::<Value>(data) {
            Ok(chunk) => self.on_chunk(&chunk, out)?,
            Err(error) => tracing::debug!(%error, "ignoring a chat SSE event that is not JSON"),
        }
        Ok(Flow::Continue)
    }

    fn on_end(&mut self, out: &mut VecDeque<ModelEvent>) -> Result<(), ModelError> {
        // Some servers close the stream after the finish chunk without `[DONE]`.
        if self.items_done {
            self.completed(out);
            return Ok(());
        }
        Err(ModelError::StreamDisconnected {
            detail: "stream closed before finish_reason or [DONE]".to_string(),
            transport_error: None,
        })
    }
}

/// Chat `usage` → [`TokenUsageBreakdown`] (§4.2).
fn usage(usage: &Value) -> Option<TokenUsageBreakdown> {
    if !usage.is_object() {
        return None;
    }
    let number = |pointer: &str| usage.pointer(pointer).and_then(Value::as_i64).unwrap_or(0);
    let input_tokens = number("/prompt_tokens");
    let output_tokens = number("/completion_tokens");
    let total_tokens = usage
        .get("total_tokens")
        .and_then(Value::as_i64)
        .unwrap_or(input_tokens + output_tokens);
    Some(TokenUsageBreakdown {
        total_tokens,
        input_tokens,
        cached_input_tokens: number("/prompt_tokens_details/cached_tokens"),
        cache_write_input_tokens: 0,
        output_tokens,
        reasoning_output_tokens: number("/completion_tokens_details/reasoning_tokens"),
    })
}

#[cfg(test)]
mod tests {
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

    fn dispatched(
        call_id: &str,
        name: &str,
        arguments: &str,
    ) -> [Result<ModelEvent, ModelError>; 2] {
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
        let [second_added, second_done] =
            dispatched("call_def", "view_image", r#"{"path":"a.png"}"#);
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
                    {"role": "assistant", "content": null, "tool_calls": [exec("call_c", "{}")]},
                    {"role": "tool", "tool_call_id": "call_c", "content": "ok"},
                ],
                "tools": [{"type": "function", "function": {"name": "exec_command", "description": "Runs a command.", "parameters": {"type": "object"}}}],
                "tool_choice": "auto",
                "parallel_tool_calls": true,
            })
        );
    }
}
