//! Non-streamed model calls, for providers configured with `stream = false`.
//!
//! Some local servers cannot stream tool calls (llama-cpp-python's server refuses to stream
//! when tools are offered and closes the stream). For them each model call is one plain
//! request, and the whole answer is replayed through the wire's SSE decoder as the events a
//! stream would have carried: every output item, its text as a single delta, then the
//! completion. The engine cannot tell the difference, so items, approvals and retries behave
//! as with a streamed answer.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::model::sse::Event;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::model::sse::{Flow, HttpProvider, SseDecoder};
use crate::model::{ModelError, ModelEvent, ModelStream};

/// Which wire the answer comes from.
#[derive(Clone, Copy, Debug)]
pub enum PlainWire {
    /// `POST /responses` with `"stream": false`: a response object.
    Responses,
    /// `POST /chat/completions` with `"stream": false`: a chat completion object.
    Chat,
}

/// One non-streamed request, its answer decoded by `decoder` into model events.
pub fn plain_model_stream<D: SseDecoder>(
    http: Arc<HttpProvider>,
    path: &'static str,
    model: String,
    mut body: Value,
    wire: PlainWire,
    mut decoder: D,
) -> ModelStream {
    if let Some(fields) = body.as_object_mut() {
        fields.insert("stream".into(), json!(false));
        fields.remove("stream_options");
    }
    let events = async move {
        let answer = match http.post_json(path, &model, &body).await {
            Ok(answer) => answer,
            Err(error) => return vec![Err(error)],
        };
        let frames = match wire {
            PlainWire::Responses => responses_frames(answer),
            PlainWire::Chat => chat_frames(answer),
        };
        decode(&mut decoder, frames)
    };
    Box::pin(futures::stream::once(events).flat_map(futures::stream::iter))
}

/// Runs `frames` through `decoder` as if they had been streamed.
fn decode<D: SseDecoder>(
    decoder: &mut D,
    frames: Vec<String>,
) -> Vec<Result<ModelEvent, ModelError>> {
    let mut out = VecDeque::new();
    let mut result = Ok(());
    let mut complete = false;
    for frame in frames {
        let event = Event {
            event: "message".into(),
            data: frame,
            id: String::new(),
            retry: None,
        };
        match decoder.on_event(event, &mut out) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Complete) => {
                complete = true;
                break;
            }
            Err(error) => {
                result = Err(error);
                break;
            }
        }
    }
    if result.is_ok() && !complete {
        result = decoder.on_end(&mut out);
    }
    let mut events: Vec<Result<ModelEvent, ModelError>> = out.into_iter().map(Ok).collect();
    if let Err(error) = result {
        events.push(Err(error));
    }
    events
}

/// A Responses object as the stream's events: for each output item `output_item.added`, one
/// `output_text.delta` per text part, `output_item.done`; then `response.completed` (or
/// `response.failed` / `response.incomplete` by status).
fn responses_frames(response: Value) -> Vec<String> {
    if let Some(error) = response.get("error").filter(|error| error.is_object())
        && response.get("output").is_none()
    {
        let frame =
            json!({"type": "error", "code": error.get("code"), "message": error.get("message")});
        return vec![frame.to_string()];
    }
    let mut frames = Vec::new();
    let output = response
        .get("output")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (index, item) in output.iter().enumerate() {
        let item_id = item
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("item_{index}"), str::to_string);
        let mut item = item.clone();
        if let Some(fields) = item.as_object_mut() {
            fields.insert("id".into(), json!(item_id));
        }
        frames.push(
            json!({"type": "response.output_item.added", "output_index": index, "item": item}),
        );
        let parts = item
            .get("content")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (content_index, part) in parts.iter().enumerate() {
            if part.get("type").and_then(Value::as_str) == Some("output_text")
                && let Some(text) = part.get("text").and_then(Value::as_str)
            {
                frames.push(json!({
                    "type": "response.output_text.delta",
                    "item_id": item_id,
                    "output_index": index,
                    "content_index": content_index,
                    "delta": text,
                }));
            }
        }
        frames.push(
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
    let kind = match response.get("status").and_then(Value::as_str) {
        Some("failed") => "response.failed",
        Some("incomplete") => "response.incomplete",
        _ => "response.completed",
    };
    frames.push(json!({"type": kind, "response": response}));
    frames.iter().map(Value::to_string).collect()
}

/// A chat completion as one chunk carrying the whole message as its delta (tool calls
/// numbered by position), then `[DONE]`.
fn chat_frames(completion: Value) -> Vec<String> {
    if let Some(error) = completion.get("error").filter(|error| error.is_object()) {
        return vec![json!({"error": error}).to_string()];
    }
    let mut choice = completion
        .pointer("/choices/0")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let mut delta = choice.get("message").cloned().unwrap_or_else(|| json!({}));
    if let Some(calls) = delta.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for (index, call) in calls.iter_mut().enumerate() {
            if let Some(fields) = call.as_object_mut() {
                fields.insert("index".into(), json!(index));
            }
        }
    }
    if let Some(fields) = choice.as_object_mut() {
        fields.remove("message");
        fields.insert("delta".into(), delta);
        if fields.get("finish_reason").is_none_or(Value::is_null) {
            fields.insert("finish_reason".into(), json!("stop"));
        }
    }
    let mut chunk = json!({"choices": [choice]});
    if let Some(usage) = completion.get("usage") {
        chunk["usage"] = usage.clone();
    }
    if let Some(id) = completion.get("id") {
        chunk["id"] = id.clone();
    }
    vec![chunk.to_string(), "[DONE]".to_string()]
}
