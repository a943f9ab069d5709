//! Chat Completions client (streaming SSE), as in `spec/model-wire.md` §4.
//!
//! The engine keeps Responses-style history; this client converts it to chat messages at the
//! edge, and turns the chat chunk stream back into the event sequence a Responses stream would
//! produce: synthesised `msg_<n>` / `rs_<n>` / `call_<n>` ids, `OutputItemAdded` on the first
//! delta, deltas, `OutputItemDone`, then `Completed`.

#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::model::sse::Event;
use app_server_protocol::thread::TokenUsageBreakdown;
use serde_json::{Map, Value, json};

use crate::config::ProviderConfig;
use crate::model::context_window::{ContextWindowFuture, ContextWindows};
use crate::model::plain::{PlainWire, plain_model_stream};
use crate::model::sse::{
    Flow, HttpProvider, MAX_STREAM_INDEX, SseDecoder, check_stream_index, error_fields,
    sse_model_stream,
};
use crate::model::{
    ContentItem, ModelClient, ModelError, ModelEvent, ModelListFuture, ModelRequest, ModelStream,
    ReasoningContentPart, ResponseItem,
};

/// Client for `POST {base_url}/chat/completions`.
pub struct ChatClient {
    http: Arc<HttpProvider>,
    /// `stream` of the provider: `false` sends one plain request per call.
    stream: bool,
    /// The context windows the provider's models endpoint reports.
    context_windows: ContextWindows,
}

impl ChatClient {
    /// Builds a client for `provider` that reads its key from the environment only.
    #[cfg(test)]
    pub fn new(provider: &ProviderConfig) -> Result<Self, ModelError> {
        Self::with_account(provider, None)
    }

    /// Builds a client for `provider` that also uses the key stored in `account` and records
    /// the rate limits of its responses there.
    pub fn with_account(
        provider: &ProviderConfig,
        account: Option<Arc<crate::account::AccountState>>,
    ) -> Result<Self, ModelError> {
        Ok(Self {
            http: Arc::new(HttpProvider::new(provider, account)?),
            stream: provider.stream,
            context_windows: ContextWindows::default(),
        })
    }
}

/// Fuzzing hook: a response body, in `chunks`, through the Chat Completions decoder.
#[cfg(feature = "fuzzing")]
pub fn decode_body_for_fuzzing(chunks: &[&[u8]]) -> (Vec<ModelEvent>, Option<ModelError>) {
    crate::model::sse::decode_body_for_fuzzing(chunks, ChatDecoder::new(1))
}

impl ModelClient for ChatClient {
    fn stream(&self, request: ModelRequest) -> ModelStream {
        let body = request_body(&request);
        // Ids are numbered from the request's position in the conversation, so they are
        // stable for a given history and do not repeat within a thread.
        let decoder = ChatDecoder::new(request.input.len());
        if !self.stream {
            return plain_model_stream(
                self.http.clone(),
                "chat/completions",
                request.model,
                body,
                PlainWire::Chat,
                decoder,
            );
        }
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

    fn prefetch_context_windows(&self) {
        self.context_windows.prefetch(&self.http);
    }

    fn context_window(&self, model: &str) -> ContextWindowFuture {
        self.context_windows.lookup(&self.http, model)
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
    // An empty `content` rather than `null` or none: all three mean "no text" to OpenAI, but
    // llama-cpp-python's server rejects a null (request validation) and, with its
    // `chatml-function-calling` format, a missing one (its template reads it).
    messages.push(json!({"role": "assistant", "content": "", "tool_calls": [call]}));
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
            self.on_delta(delta, out)?;
        }
        match choice.get("finish_reason").and_then(Value::as_str) {
            Some(reason) if !self.items_done => self.finish_items(reason, out),
            _ => Ok(()),
        }
    }

    fn on_delta(
        &mut self,
        delta: &Value,
        out: &mut VecDeque<ModelEvent>,
    ) -> Result<(), ModelError> {
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
                self.on_tool_call_fragment(position, call)?;
            }
        }
        Ok(())
    }

    fn on_tool_call_fragment(
        &mut self,
        position: usize,
        fragment: &Value,
    ) -> Result<(), ModelError> {
        let id = fragment
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let function = fragment.get("function");
        let name = function
            .and_then(|function| function.get("name"))
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty());
        let index = fragment.get("index").and_then(Value::as_u64);
        if let Some(index) = index {
            check_stream_index("tool_calls index", index)?;
        }
        let slot = self.slot_for(index, position, id, name.is_some())?;
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
        Ok(())
    }

    /// Which accumulated call a fragment belongs to.
    fn slot_for(
        &mut self,
        index: Option<u64>,
        position: usize,
        id: Option<&str>,
        has_name: bool,
    ) -> Result<usize, ModelError> {
        if let Some(index) = index {
            if let Some(slot) = self.slots_by_index.get(&index).copied() {
                // A different id at a known index is a new call from a server that numbers
                // every whole call 0.
                let other_call = matches!(
                    (id, self.calls[slot].id.as_deref()),
                    (Some(new), Some(old)) if new != old
                );
                if !other_call {
                    return Ok(slot);
                }
            }
            let slot = self.new_call()?;
            self.slots_by_index.insert(index, slot);
            return Ok(slot);
        }
        if let Some(id) = id
            && let Some(slot) = self
                .calls
                .iter()
                .position(|call| call.id.as_deref() == Some(id))
        {
            return Ok(slot);
        }
        // Without an index, a fragment that names a call starts a new one when the call at
        // its array position is already complete (servers that send each call whole);
        // otherwise it continues the call at its array position.
        let starts_call = id.is_some() || has_name;
        match self.slots_by_position.get(&position) {
            Some(slot) if !starts_call || !self.calls[*slot].is_complete() => Ok(*slot),
            _ => {
                let slot = self.new_call()?;
                self.slots_by_position.insert(position, slot);
                Ok(slot)
            }
        }
    }

    /// A new call slot. A response may hold at most [`MAX_STREAM_INDEX`] calls: ids and
    /// array positions start new calls too, so capping the index alone would not bound them.
    fn new_call(&mut self) -> Result<usize, ModelError> {
        if self.calls.len() as u64 >= MAX_STREAM_INDEX {
            return Err(ModelError::OverLimit {
                context: "model stream",
                what: "the number of tool calls in one response".to_string(),
                limit: MAX_STREAM_INDEX.to_string(),
            });
        }
        self.calls.push(ToolCall::default());
        Ok(self.calls.len() - 1)
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
