//! OpenAI Responses API client (streaming SSE), as in `spec/model-wire.md` §1.
//!
//! The request carries the whole conversation every time (`store: false`), and the stream's
//! `response.*` events map one to one onto [`ModelEvent`]s.

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::sync::Arc;

use crate::model::sse::Event;
use app_server_protocol::policy::ReasoningSummary;
use app_server_protocol::thread::TokenUsageBreakdown;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::config::ProviderConfig;
use crate::model::context_window::{ContextWindowFuture, ContextWindows};
use crate::model::plain::{PlainWire, plain_model_stream};
use crate::model::sse::{
    Flow, HttpProvider, SseDecoder, check_stream_index, error_fields, sse_model_stream,
};
use crate::model::{
    ModelClient, ModelError, ModelEvent, ModelListFuture, ModelRequest, ModelStream, ResponseItem,
};

/// Client for `POST {base_url}/responses`.
pub struct ResponsesClient {
    http: Arc<HttpProvider>,
    /// `stream` of the provider: `false` sends one plain request per call.
    stream: bool,
    /// The context windows the provider's models endpoint reports.
    context_windows: ContextWindows,
}

impl ResponsesClient {
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

impl ModelClient for ResponsesClient {
    fn stream(&self, request: ModelRequest) -> ModelStream {
        let body = request_body(&request);
        if !self.stream {
            return plain_model_stream(
                self.http.clone(),
                "responses",
                request.model,
                body,
                PlainWire::Responses,
                ResponsesDecoder,
            );
        }
        sse_model_stream(
            self.http.clone(),
            "responses",
            request.model,
            body,
            ResponsesDecoder,
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

/// Fuzzing hook: a response body, in `chunks`, through the Responses decoder.
#[cfg(feature = "fuzzing")]
pub fn decode_body_for_fuzzing(chunks: &[&[u8]]) -> (Vec<ModelEvent>, Option<ModelError>) {
    crate::model::sse::decode_body_for_fuzzing(chunks, ResponsesDecoder)
}

/// The JSON body of `POST /responses` (§1.1).
fn request_body(request: &ModelRequest) -> Value {
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| {
            json!({
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "strict": false,
                "parameters": tool.parameters,
            })
        })
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    if !request.instructions.is_empty() {
        body.insert("instructions".into(), json!(request.instructions));
    }
    body.insert("input".into(), json!(request.input));
    body.insert("tools".into(), Value::Array(tools));
    body.insert("tool_choice".into(), json!("auto"));
    body.insert("parallel_tool_calls".into(), json!(true));
    let mut reasoning = Map::new();
    if let Some(effort) = request.effort {
        reasoning.insert("effort".into(), json!(effort));
    }
    if let Some(summary) = request.summary
        && summary != ReasoningSummary::None
    {
        reasoning.insert("summary".into(), json!(summary));
    }
    let has_reasoning = !reasoning.is_empty();
    if has_reasoning {
        body.insert("reasoning".into(), Value::Object(reasoning));
    }
    body.insert("store".into(), json!(false));
    if has_reasoning {
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    body.insert("prompt_cache_key".into(), json!(request.thread_id));
    body.insert("stream".into(), json!(true));
    if let Some(schema) = &request.output_schema {
        body.insert(
            "text".into(),
            json!({
                "format": {
                    "type": "json_schema",
                    "name": "codex_output_schema",
                    "schema": schema,
                    "strict": true,
                }
            }),
        );
    }
    Value::Object(body)
}

/// The fields of a `response.*` event the engine uses (§1.2).
#[derive(Deserialize)]
struct StreamEvent {
    #[serde(rename = "type")]
    kind: Option<String>,
    item: Option<Value>,
    item_id: Option<String>,
    delta: Option<String>,
    output_index: Option<i64>,
    summary_index: Option<i64>,
    content_index: Option<i64>,
    response: Option<Value>,
    /// Top-level fields of an `error` event.
    code: Option<Value>,
    message: Option<String>,
}

/// Maps Responses SSE events to model events.
struct ResponsesDecoder;

impl SseDecoder for ResponsesDecoder {
    fn on_event(
        &mut self,
        event: Event,
        out: &mut VecDeque<ModelEvent>,
    ) -> Result<Flow, ModelError> {
        let data: StreamEvent = match serde_json::from_str(&event.data) {
            Ok(data) => data,
            Err(error) => {
                tracing::debug!(event = %event.event, %error, "ignoring an SSE event that is not a JSON object");
                return Ok(Flow::Continue);
            }
        };
        // The engine grows a list up to an index it is given, so every index is checked,
        // whichever event carries it.
        for (field, index) in [
            ("output_index", data.output_index),
            ("summary_index", data.summary_index),
            ("content_index", data.content_index),
        ] {
            // A negative index is harmless: the engine reads it as 0.
            if let Some(index) = index.and_then(|index| u64::try_from(index).ok()) {
                check_stream_index(field, index)?;
            }
        }
        let kind = data.kind.as_deref().unwrap_or(&event.event);
        match kind {
            "response.output_item.added" => {
                if let Some(item) = output_item(kind, data.item)? {
                    out.push_back(ModelEvent::OutputItemAdded(item));
                }
            }
            "response.output_item.done" => {
                if let Some(item) = output_item(kind, data.item)? {
                    out.push_back(ModelEvent::OutputItemDone(item));
                }
            }
            "response.output_text.delta" => {
                out.push_back(ModelEvent::OutputTextDelta {
                    item_id: required(kind, "item_id", data.item_id)?,
                    delta: required(kind, "delta", data.delta)?,
                });
            }
            "response.reasoning_summary_part.added" => {
                out.push_back(ModelEvent::ReasoningSummaryPartAdded {
                    item_id: required(kind, "item_id", data.item_id)?,
                    summary_index: data.summary_index.unwrap_or(0),
                });
            }
            "response.reasoning_summary_text.delta" => {
                out.push_back(ModelEvent::ReasoningSummaryTextDelta {
                    item_id: required(kind, "item_id", data.item_id)?,
                    summary_index: data.summary_index.unwrap_or(0),
                    delta: required(kind, "delta", data.delta)?,
                });
            }
            "response.reasoning_text.delta" => {
                out.push_back(ModelEvent::ReasoningTextDelta {
                    item_id: required(kind, "item_id", data.item_id)?,
                    content_index: data.content_index.unwrap_or(0),
                    delta: required(kind, "delta", data.delta)?,
                });
            }
            "response.completed" => {
                let response = data.response.unwrap_or(Value::Null);
                out.push_back(ModelEvent::Completed {
                    response_id: response
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    usage: response.get("usage").and_then(usage),
                });
                return Ok(Flow::Complete);
            }
            "response.failed" => {
                let response = data.response.unwrap_or(Value::Null);
                let (message, code) = error_fields(response.get("error").unwrap_or(&Value::Null));
                return Err(ModelError::ResponseFailed {
                    code,
                    message: message.unwrap_or_else(|| "response.failed".to_string()),
                });
            }
            "response.incomplete" => {
                let response = data.response.unwrap_or(Value::Null);
                let reason = response
                    .pointer("/incomplete_details/reason")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                return Err(ModelError::ResponseFailed {
                    code: Some("incomplete".to_string()),
                    message: format!("incomplete response returned, reason: {reason}"),
                });
            }
            "error" => {
                let code = data.code.and_then(|code| match code {
                    Value::String(code) => Some(code),
                    Value::Number(code) => Some(code.to_string()),
                    _ => None,
                });
                return Err(ModelError::ResponseFailed {
                    code,
                    message: data.message.unwrap_or_else(|| "error event".to_string()),
                });
            }
            other => tracing::debug!(event = other, "ignoring Responses event"),
        }
        Ok(Flow::Continue)
    }

    fn on_end(&mut self, _out: &mut VecDeque<ModelEvent>) -> Result<(), ModelError> {
        Err(ModelError::StreamDisconnected {
            detail: "stream closed before response.completed".to_string(),
            transport_error: None,
        })
    }
}

/// A required field of a known event.
fn required(kind: &str, field: &str, value: Option<String>) -> Result<String, ModelError> {
    value.ok_or_else(|| ModelError::InvalidResponse {
        detail: format!("`{kind}` event without `{field}`"),
    })
}

/// The item of an `output_item.*` event; `None` for item types the engine does not handle.
fn output_item(kind: &str, item: Option<Value>) -> Result<Option<ResponseItem>, ModelError> {
    let Some(mut item) = item else {
        return Err(ModelError::InvalidResponse {
            detail: format!("`{kind}` event without `item`"),
        });
    };
    let item_type = item.get("type").and_then(Value::as_str).unwrap_or_default();
    match item_type {
        "message" => keep_known_content(&mut item),
        "reasoning" | "function_call" | "custom_tool_call" => {}
        other => {
            tracing::debug!(item_type = other, "ignoring output item");
            return Ok(None);
        }
    }
    serde_json::from_value(item)
        .map(Some)
        .map_err(|error| ModelError::InvalidResponse {
            detail: format!("bad item in `{kind}`: {error}"),
        })
}

/// Keeps the content parts of a message that [`crate::model::ContentItem`] knows; a
/// `refusal` part becomes output text so the user sees it.
fn keep_known_content(message: &mut Value) {
    let Some(parts) = message.get_mut("content").and_then(Value::as_array_mut) else {
        return;
    };
    parts.retain_mut(|part| {
        let part_type = part.get("type").and_then(Value::as_str).unwrap_or_default();
        match part_type {
            "output_text" | "input_text" | "input_image" => true,
            "refusal" => {
                let text = part.get("refusal").cloned().unwrap_or_default();
                *part = json!({"type": "output_text", "text": text});
                true
            }
            other => {
                tracing::debug!(part_type = other, "ignoring message content part");
                false
            }
        }
    });
}

/// `response.usage` → [`TokenUsageBreakdown`] (§1.3).
fn usage(usage: &Value) -> Option<TokenUsageBreakdown> {
    if !usage.is_object() {
        return None;
    }
    let number = |pointer: &str| usage.pointer(pointer).and_then(Value::as_i64).unwrap_or(0);
    let input_tokens = number("/input_tokens");
    let output_tokens = number("/output_tokens");
    let total_tokens = usage
        .get("total_tokens")
        .and_then(Value::as_i64)
        .unwrap_or(input_tokens + output_tokens);
    Some(TokenUsageBreakdown {
        total_tokens,
        input_tokens,
        cached_input_tokens: number("/input_tokens_details/cached_tokens"),
        cache_write_input_tokens: 0,
        output_tokens,
        reasoning_output_tokens: number("/output_tokens_details/reasoning_tokens"),
    })
}
