//! A mock model server: real HTTP/1.1 on `127.0.0.1`, real chunked SSE streaming.
//!
//! Tests queue [`MockResponse`]s with [`MockModel::push`]; each `POST /v1/responses` or
//! `POST /v1/chat/completions` takes the next one, in order.
//! A response can be a stream of SSE frames (optionally delayed), a stream that drops the
//! connection part-way, an HTTP error, or a *gated* stream whose frames the test releases one
//! by one through a [`Gate`] (for interrupt and steer tests).
//!
//! ```ignore
//! let model = MockModel::start().await;
//! model.push(MockResponse::sse(responses_text("msg_1", &["Hello", " world"])));
//! // point the provider's base_url at model.base_url(), run a turn, then:
//! assert_eq!(model.requests()[0]["model"], "mock-model");
//! ```
//!
//! Frames are encoded once, when the response is built, and written as they are, so a
//! 20,000-delta stream costs little more than its bytes.

use std::collections::{BTreeMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::{Stream, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

/// How long a dropping stream waits for its frames to be flushed before it drops.
const DROP_GRACE: Duration = Duration::from_millis(20);

/// Input tokens reported by the frame builders' usage.
const MOCK_INPUT_TOKENS: u64 = 100;

/// The mock model server. It stops when dropped.
pub struct MockModel {
    base_url: String,
    state: Arc<MockState>,
    server: JoinHandle<()>,
}

/// One request the mock received.
#[derive(Clone, Debug, PartialEq)]
pub struct MockRequest {
    /// `POST` or `GET`.
    pub method: String,
    /// The path, such as `/v1/responses`.
    pub path: String,
    /// Headers, names in lower case.
    pub headers: BTreeMap<String, String>,
    /// The JSON body (`null` when empty, a string when it is not JSON).
    pub body: Value,
}

/// What the mock answers to one model request.
pub struct MockResponse {
    kind: ResponseKind,
    headers: Vec<(String, String)>,
}

/// One server-sent event, encoded (`event: …\ndata: …\n\n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseFrame(Bytes);

/// Releases the frames of a gated response (see [`MockResponse::gated`]).
///
/// Dropping the gate releases every remaining frame, so no connection is left hanging.
pub struct Gate {
    control: watch::Sender<GateControl>,
    progress: watch::Receiver<Option<usize>>,
}

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

enum ResponseKind {
    Stream {
        frames: Vec<SseFrame>,
        delay: Duration,
        /// Drop the connection after this many frames.
        drop_after: Option<usize>,
    },
    Error {
        status: StatusCode,
        body: Value,
    },
    Gated {
        frames: Vec<SseFrame>,
        control: watch::Receiver<GateControl>,
        progress: watch::Sender<Option<usize>>,
    },
}

#[derive(Clone, Copy, Debug, Default)]
struct GateControl {
    released: usize,
    all: bool,
    dropped: bool,
}

#[derive(Default)]
struct MockState {
    queue: Mutex<VecDeque<MockResponse>>,
    requests: Mutex<Vec<MockRequest>>,
    request_arrived: Notify,
}

impl MockModel {
    /// Starts the server on a random port of `127.0.0.1`.
    pub async fn start() -> MockModel {
        let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
            Ok(listener) => listener,
            Err(error) => panic!("mock model: cannot bind 127.0.0.1: {error}"),
        };
        let port = match listener.local_addr() {
            Ok(address) => address.port(),
            Err(error) => panic!("mock model: no local address: {error}"),
        };
        let state = Arc::new(MockState::default());
        let router = Router::new()
            .route("/v1/responses", post(model_request))
            .route("/v1/chat/completions", post(model_request))
            .route("/v1/models", get(models))
            .fallback(unknown_route)
            .with_state(state.clone());
        let server = tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, router).await {
                eprintln!("mock model: server stopped: {error}");
            }
        });
        MockModel {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            state,
            server,
        }
    }

    /// The provider base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// Queues `response` for the next model request.
    pub fn push(&self, response: MockResponse) {
        lock(&self.state.queue).push_back(response);
    }

    /// Queues several responses, in order.
    pub fn push_all(&self, responses: impl IntoIterator<Item = MockResponse>) {
        lock(&self.state.queue).extend(responses);
    }

    /// How many queued responses have not been served yet.
    pub fn pending_responses(&self) -> usize {
        lock(&self.state.queue).len()
    }

    /// The JSON bodies of the model requests received, in order (`GET /v1/models` excluded).
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.state.requests)
            .iter()
            .filter(|request| request.method == "POST")
            .map(|request| request.body.clone())
            .collect()
    }

    /// Every request received, with method, path and headers.
    pub fn received(&self) -> Vec<MockRequest> {
        lock(&self.state.requests).clone()
    }

    /// How many model requests were received (`GET /v1/models` excluded).
    pub fn request_count(&self) -> usize {
        lock(&self.state.requests)
            .iter()
            .filter(|request| request.method == "POST")
            .count()
    }

    /// Waits until at least `count` model requests have arrived; `false` on timeout.
    pub async fn wait_for_requests(&self, count: usize, timeout: Duration) -> bool {
        let wait = async {
            loop {
                let arrived = self.state.request_arrived.notified();
                if self.request_count() >= count {
                    return;
                }
                arrived.await;
            }
        };
        tokio::time::timeout(timeout, wait).await.is_ok()
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl MockResponse {
    /// `200 text/event-stream` with `frames`, written as fast as the client reads.
    pub fn sse(frames: Vec<SseFrame>) -> MockResponse {
        MockResponse::from_kind(ResponseKind::Stream {
            frames,
            delay: Duration::ZERO,
            drop_after: None,
        })
    }

    /// Like [`MockResponse::sse`], but the connection is dropped (no final chunk) after the
    /// first `count` frames.
    pub fn sse_then_drop(frames: Vec<SseFrame>, count: usize) -> MockResponse {
        MockResponse::from_kind(ResponseKind::Stream {
            frames,
            delay: Duration::ZERO,
            drop_after: Some(count),
        })
    }

    /// An HTTP error: `status` with `{"error":{"message":…,"type":"mock_error","code":null}}`.
    pub fn error(status: u16, message: &str) -> MockResponse {
        MockResponse::error_json(
            status,
            json!({"error": {"message": message, "type": "mock_error", "code": null}}),
        )
    }

    /// An HTTP error with the given JSON body.
    pub fn error_json(status: u16, body: Value) -> MockResponse {
        MockResponse::from_kind(ResponseKind::Error {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            body,
        })
    }

    /// A stream whose frames are written only when the returned [`Gate`] releases them.
    /// The response headers go out at once.
    pub fn gated(frames: Vec<SseFrame>) -> (MockResponse, Gate) {
        let (control_sender, control) = watch::channel(GateControl::default());
        let (progress, progress_receiver) = watch::channel(None);
        let response = MockResponse::from_kind(ResponseKind::Gated {
            frames,
            control,
            progress,
        });
        let gate = Gate {
            control: control_sender,
            progress: progress_receiver,
        };
        (response, gate)
    }

    /// Waits `delay` before each frame of a stream (no effect on errors and gated streams).
    pub fn with_delay(mut self, delay: Duration) -> MockResponse {
        if let ResponseKind::Stream {
            delay: frame_delay, ..
        } = &mut self.kind
        {
            *frame_delay = delay;
        }
        self
    }

    /// Adds a response header, such as `retry-after`.
    pub fn with_header(mut self, name: &str, value: &str) -> MockResponse {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    fn from_kind(kind: ResponseKind) -> MockResponse {
        MockResponse {
            kind,
            headers: Vec::new(),
        }
    }

    fn into_response(self) -> Response {
        let headers = self.headers;
        let mut response = match self.kind {
            ResponseKind::Error { status, body } => (status, axum::Json(body)).into_response(),
            ResponseKind::Stream {
                frames,
                delay,
                drop_after,
            } => sse_response(Body::from_stream(frame_stream(frames, delay, drop_after))),
            ResponseKind::Gated {
                frames,
                control,
                progress,
            } => {
                progress.send_replace(Some(0));
                sse_response(Body::from_stream(gated_stream(frames, control, progress)))
            }
        };
        for (name, value) in headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                response.headers_mut().insert(name, value);
            }
        }
        response
    }
}

impl Gate {
    /// Releases `count` more frames.
    pub fn release(&self, count: usize) {
        self.control
            .send_modify(|control| control.released += count);
    }

    /// Releases every remaining frame.
    pub fn release_all(&self) {
        self.control.send_modify(|control| control.all = true);
    }

    /// Drops the connection before the next unreleased frame.
    pub fn drop_connection(&self) {
        self.control.send_modify(|control| control.dropped = true);
    }

    /// How many frames have been handed to the connection so far (`None` before the
    /// request arrived).
    pub fn sent(&self) -> Option<usize> {
        *self.progress.borrow()
    }

    /// Waits until the response has been requested and `count` frames were handed to the
    /// connection; `false` on timeout.
    pub async fn wait_sent(&self, count: usize, timeout: Duration) -> bool {
        let mut progress = self.progress.clone();
        let wait = progress.wait_for(|sent| sent.is_some_and(|sent| sent >= count));
        matches!(tokio::time::timeout(timeout, wait).await, Ok(Ok(_)))
    }

    /// Waits until the model request for this response has arrived; `false` on timeout.
    pub async fn wait_requested(&self, timeout: Duration) -> bool {
        self.wait_sent(0, timeout).await
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.release_all();
    }
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

async fn model_request(
    State(state): State<Arc<MockState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let number = record(&state, &method, uri.path(), &headers, &body);
    let response = lock(&state.queue).pop_front();
    match response {
        Some(response) => response.into_response(),
        None => {
            let message = format!(
                "mock model: no response queued for request #{number} ({method} {})",
                uri.path()
            );
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                axum::Json(json!({"error": {"message": message, "type": "mock_error", "code": "mock_queue_empty"}})),
            )
                .into_response()
        }
    }
}

async fn models(
    State(state): State<Arc<MockState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    record(&state, &method, uri.path(), &headers, &Bytes::new());
    axum::Json(json!({"object": "list", "data": [{"id": "mock-model", "object": "model"}]}))
        .into_response()
}

async fn unknown_route(method: Method, uri: Uri) -> Response {
    let message = format!("mock model: no route for {method} {}", uri.path());
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"error": {"message": message, "type": "mock_error", "code": null}})),
    )
        .into_response()
}

/// Records a request and returns its 1-based number.
fn record(
    state: &MockState,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    body: &Bytes,
) -> usize {
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()))
    };
    let headers = headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_string(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    let number = {
        let mut requests = lock(&state.requests);
        requests.push(MockRequest {
            method: method.to_string(),
            path: path.to_string(),
            headers,
            body,
        });
        requests.len()
    };
    state.request_arrived.notify_waiters();
    number
}

fn sse_response(body: Body) -> Response {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(body)
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn dropped() -> std::io::Error {
    std::io::Error::other("mock model: connection dropped")
}

/// The body of a plain stream. Without a delay the frames go out as fast as hyper takes them
/// (no timer per frame).
fn frame_stream(
    frames: Vec<SseFrame>,
    delay: Duration,
    drop_after: Option<usize>,
) -> Pin<Box<dyn Stream<Item = Result<Bytes, std::io::Error>> + Send>> {
    let count = drop_after.unwrap_or(frames.len());
    let frames = frames.into_iter().take(count).map(|frame| frame.0);
    let body: Pin<Box<dyn Stream<Item = Result<Bytes, std::io::Error>> + Send>> = if delay.is_zero()
    {
        Box::pin(futures::stream::iter(frames.map(Ok)))
    } else {
        Box::pin(futures::stream::iter(frames).then(move |frame| async move {
            tokio::time::sleep(delay).await;
            Ok(frame)
        }))
    };
    if drop_after.is_none() {
        return body;
    }
    // hyper flushes what it has while the body is pending; without this pause it would
    // close the connection before the frames reach the client.
    Box::pin(body.chain(futures::stream::once(async {
        tokio::time::sleep(DROP_GRACE).await;
        Err(dropped())
    })))
}

/// The body of a gated stream: each frame waits for the gate.
fn gated_stream(
    frames: Vec<SseFrame>,
    control: watch::Receiver<GateControl>,
    progress: watch::Sender<Option<usize>>,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send {
    struct Gated {
        frames: VecDeque<Bytes>,
        control: watch::Receiver<GateControl>,
        progress: watch::Sender<Option<usize>>,
        sent: usize,
        /// The gate was dropped: release everything.
        gate_gone: bool,
        finished: bool,
    }
    let gated = Gated {
        frames: frames.into_iter().map(|frame| frame.0).collect(),
        control,
        progress,
        sent: 0,
        gate_gone: false,
        finished: false,
    };
    futures::stream::unfold(gated, |mut gated| async move {
        loop {
            if gated.finished {
                return None;
            }
            let control = *gated.control.borrow_and_update();
            if control.dropped && !gated.frames.is_empty() {
                gated.finished = true;
                return Some((Err(dropped()), gated));
            }
            if control.all || gated.gate_gone || control.released > gated.sent {
                let frame = gated.frames.pop_front()?;
                gated.sent += 1;
                gated.progress.send_replace(Some(gated.sent));
                return Some((Ok(frame), gated));
            }
            if gated.control.changed().await.is_err() {
                gated.gate_gone = true;
            }
        }
    })
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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::*;

    const TIMEOUT: Duration = Duration::from_secs(5);

    /// Sends a raw HTTP/1.1 request and returns the connection.
    async fn send(model: &MockModel, method: &str, path: &str, body: &str) -> TcpStream {
        let address = model.base_url().replace("http://", "").replace("/v1", "");
        let mut stream = TcpStream::connect(address).await.unwrap();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: mock\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        stream
    }

    /// Reads until `needle` appears in what was received.
    async fn read_until(stream: &mut TcpStream, received: &mut String, needle: &str) {
        let mut buffer = [0u8; 65536];
        tokio::time::timeout(TIMEOUT, async {
            while !received.contains(needle) {
                let read = stream.read(&mut buffer).await.unwrap();
                assert!(
                    read > 0,
                    "connection closed before {needle:?}; got {received:?}"
                );
                received.push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        })
        .await
        .unwrap();
    }

    async fn read_to_end(stream: &mut TcpStream) -> String {
        let mut received = Vec::new();
        tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut received))
            .await
            .unwrap()
            .unwrap();
        String::from_utf8_lossy(&received).into_owned()
    }

    #[tokio::test]
    async fn serves_queued_responses_in_order() {
        let model = MockModel::start().await;
        model.push(MockResponse::sse(responses_text("msg_1", &["Hel", "lo"])));
        model.push(MockResponse::error(429, "slow down").with_header("retry-after", "1"));

        let mut stream = send(&model, "POST", "/v1/responses", r#"{"model":"mock-model"}"#).await;
        let text = read_to_end(&mut stream).await;
        assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
        assert!(text.contains("content-type: text/event-stream"), "{text}");
        assert!(text.contains("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hel\"}\n\n"), "{text}");
        assert!(text.contains("\"text\":\"Hello\""), "{text}");
        assert!(text.contains("\"output_tokens\":2"), "{text}");
        assert!(text.ends_with("0\r\n\r\n"), "{text}");

        let mut stream = send(&model, "POST", "/v1/chat/completions", "{}").await;
        let text = read_to_end(&mut stream).await;
        assert!(text.starts_with("HTTP/1.1 429"), "{text}");
        assert!(text.contains("retry-after: 1"), "{text}");
        assert!(text.contains(r#""message":"slow down""#), "{text}");

        let mut stream = send(&model, "POST", "/v1/responses", "{}").await;
        let text = read_to_end(&mut stream).await;
        assert!(text.starts_with("HTTP/1.1 500"), "{text}");
        assert!(
            text.contains("no response queued for request #3 (POST /v1/responses)"),
            "{text}"
        );

        let mut stream = send(&model, "GET", "/v1/models", "").await;
        let text = read_to_end(&mut stream).await;
        assert!(text.contains(r#""id":"mock-model""#), "{text}");

        assert_eq!(model.request_count(), 3);
        assert_eq!(
            model.requests(),
            vec![json!({"model": "mock-model"}), json!({}), json!({})]
        );
        let paths: Vec<String> = model
            .received()
            .into_iter()
            .map(|request| request.path)
            .collect();
        assert_eq!(
            paths,
            [
                "/v1/responses",
                "/v1/chat/completions",
                "/v1/responses",
                "/v1/models"
            ]
        );
        assert!(model.wait_for_requests(3, TIMEOUT).await);
    }

    #[tokio::test]
    async fn drops_the_connection_mid_stream() {
        let model = MockModel::start().await;
        model.push(MockResponse::sse_then_drop(chat_text(&["a", "b", "c"]), 2));
        let mut stream = send(&model, "POST", "/v1/chat/completions", "{}").await;
        let text = read_to_end(&mut stream).await;
        assert!(text.contains(r#""content":"""#), "{text}");
        assert!(text.contains(r#""content":"a""#), "{text}");
        assert!(!text.contains(r#""content":"b""#), "{text}");
        assert!(!text.ends_with("0\r\n\r\n"), "{text}");
    }

    #[tokio::test]
    async fn gated_frames_wait_for_release() {
        let model = MockModel::start().await;
        let (response, gate) = MockResponse::gated(responses_text("msg_1", &["one", "two"]));
        model.push(response);
        assert_eq!(gate.sent(), None);
        let mut stream = send(&model, "POST", "/v1/responses", "{}").await;
        assert!(gate.wait_requested(TIMEOUT).await);

        let mut received = String::new();
        gate.release(2);
        read_until(&mut stream, &mut received, "response.output_item.added").await;
        assert!(gate.wait_sent(2, TIMEOUT).await);
        assert!(!received.contains("\"delta\":\"one\""), "{received}");

        gate.release(1);
        read_until(&mut stream, &mut received, "\"delta\":\"one\"").await;
        assert!(!received.contains("\"delta\":\"two\""), "{received}");

        gate.drop_connection();
        let rest = read_to_end(&mut stream).await;
        assert!(!rest.contains("\"delta\":\"two\""), "{rest}");
        assert!(!rest.ends_with("0\r\n\r\n"), "{rest}");
    }

    #[tokio::test]
    async fn long_streams_are_fast() {
        let model = MockModel::start().await;
        let deltas = token_deltas(20_000);
        let started = std::time::Instant::now();
        model.push(MockResponse::sse(responses_text("msg_1", &deltas)));
        let mut stream = send(&model, "POST", "/v1/responses", "{}").await;
        let text = read_to_end(&mut stream).await;
        assert!(text.contains("\"output_tokens\":20000"));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn builders_concatenate_items() {
        let frames = ResponsesStream::new()
            .reasoning_summary("rs_1", &["think"])
            .function_call("call_1", "exec_command", r#"{"cmd":"ls"}"#)
            .frames();
        let events: Vec<&str> = frames
            .iter()
            .map(|frame| frame.as_str().lines().next().unwrap_or_default())
            .collect();
        assert_eq!(
            events,
            [
                "event: response.created",
                "event: response.output_item.added",
                "event: response.reasoning_summary_part.added",
                "event: response.reasoning_summary_text.delta",
                "event: response.output_item.done",
                "event: response.output_item.added",
                "event: response.function_call_arguments.delta",
                "event: response.output_item.done",
                "event: response.completed",
            ]
        );
        assert!(frames[5].as_str().contains("\"output_index\":1"));

        let frames = chat_tool_call("call_1", "exec_command", r#"{"cmd":"ls"}"#);
        let arguments: String = frames
            .iter()
            .filter_map(|frame| frame.as_str().strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .filter_map(|chunk| {
                chunk
                    .pointer("/choices/0/delta/tool_calls/0/function/arguments")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .collect();
        assert_eq!(arguments, r#"{"cmd":"ls"}"#);
        assert_eq!(frames.last(), Some(&SseFrame::done()));
        assert!(
            frames[frames.len() - 3]
                .as_str()
                .contains("\"finish_reason\":\"tool_calls\"")
        );
    }
}
