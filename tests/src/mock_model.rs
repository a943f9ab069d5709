//! A mock model server: real HTTP/1.1 on `127.0.0.1`, real chunked SSE streaming.
//!
//! Tests queue [`MockResponse`]s with [`MockModel::push`]; each `POST /v1/responses` or
//! `POST /v1/chat/completions` takes the next one, in order.
//! A response can be a stream of SSE frames (optionally delayed), a stream that drops the
//! connection part-way, an HTTP error, a *gated* stream whose frames the test releases one
//! by one through a [`Gate`] (for interrupt and steer tests), or a hostile provider's raw
//! bytes ([`MockResponse::raw`]).
//!
//! ```text
//! let model = MockModel::start().await;
//! model.push(MockResponse::sse(responses_text("msg_1", &["Hello", " world"])));
//! // point the provider's base_url at model.base_url(), run a turn, then:
//! assert_eq!(model.requests()[0]["model"], "mock-model");
//! ```
//!
//! Frames are encoded once, when the response is built, and written as they are, so a
//! 20,000-delta stream costs little more than its bytes.
//! The frames and their builders live in `frames`, re-exported here.

mod frames;
#[cfg(test)]
mod tests;

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

pub use self::frames::{
    ChatStream, ResponsesStream, SseFrame, chat_text, chat_tool_call, responses_failed,
    responses_function_call, responses_reasoning_raw, responses_reasoning_summary, responses_text,
    token_deltas,
};

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

/// Releases the frames of a gated response (see [`MockResponse::gated`]).
///
/// Dropping the gate releases every remaining frame, so no connection is left hanging.
pub struct Gate {
    control: watch::Sender<GateControl>,
    progress: watch::Receiver<Option<usize>>,
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
    Raw {
        content_type: String,
        body: Bytes,
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
    /// How long `GET /v1/models` waits before answering.
    models_delay: Mutex<Duration>,
    /// The `data` of `GET /v1/models`; `None` lists `mock-model` alone, with no metadata.
    model_entries: Mutex<Option<Vec<Value>>>,
    /// Behave like llama-cpp-python's server: a streamed request that offers tools gets the
    /// stream headers and then a closed connection, without taking a queued response.
    refuse_streamed_tools: Mutex<bool>,
    /// The answer of llama.cpp's `GET /props`; `None` answers 404 as llama-cpp-python does.
    props: Mutex<Option<Value>>,
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
            .route("/props", get(props))
            .fallback(unknown_route)
            .with_state(state.clone());
        let server = tokio::spawn(async move {
            // Without TCP_NODELAY, Nagle's algorithm and delayed ACKs add ~40 ms to streams
            // written in several small pieces.
            let listener = axum::serve::ListenerExt::tap_io(listener, |socket| {
                let _ = socket.set_nodelay(true);
            });
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

    /// Makes `GET /v1/models` answer only after `delay` (zero by default), so that `model/list`
    /// is slow on purpose. The request is recorded as soon as it arrives.
    pub fn set_models_delay(&self, delay: Duration) {
        *lock(&self.state.models_delay) = delay;
    }

    /// Makes `GET /v1/models` list `entries` (its `data` array), e.g. with the context window
    /// fields of vLLM (`max_model_len`) or llama.cpp's server (`meta.n_ctx_train`).
    pub fn set_model_entries(&self, entries: Vec<Value>) {
        *lock(&self.state.model_entries) = Some(entries);
    }

    /// Makes `GET /props` (at the root, as on llama.cpp's server) answer `props`, e.g.
    /// `{"default_generation_settings": {"n_ctx": 4096}}`; without it the answer is
    /// llama-cpp-python's 404 `{"detail": "Not Found"}`.
    pub fn set_props(&self, props: Value) {
        *lock(&self.state.props) = Some(props);
    }

    /// Makes the mock behave like llama-cpp-python's OpenAI-compatible server, which refuses
    /// to stream when tools are offered ("Automatic streaming tool choice is not supported")
    /// after sending the stream headers: such a request gets `200 text/event-stream` and a
    /// connection closed before any frame. It also rejects, with a 500, an assistant message
    /// whose `content` is not a string (`null` fails its request validation, a missing one its
    /// `chatml-function-calling` template).
    /// Other requests take the queue as usual.
    pub fn refuse_streamed_tools(&self) {
        *lock(&self.state.refuse_streamed_tools) = true;
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

    /// `200 application/json` with `body`: the answer to a non-streamed request.
    pub fn json(body: Value) -> MockResponse {
        MockResponse::from_kind(ResponseKind::Error {
            status: StatusCode::OK,
            body,
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

    /// `200` with `content_type` and `body` byte for byte, whatever it holds: a hostile
    /// provider's answer (an event stream with absurd indices or without line ends, a huge
    /// JSON body). It is sent chunked, without `Content-Length`, so the client cannot know
    /// its size before reading it.
    pub fn raw(content_type: &str, body: impl Into<Bytes>) -> MockResponse {
        MockResponse::from_kind(ResponseKind::Raw {
            content_type: content_type.to_string(),
            body: body.into(),
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
            ResponseKind::Raw { content_type, body } => {
                const PIECE: usize = 64 * 1024;
                let pieces = (0..body.len()).step_by(PIECE).map(move |start| {
                    Ok::<_, std::convert::Infallible>(
                        body.slice(start..body.len().min(start + PIECE)),
                    )
                });
                let mut response = Body::from_stream(futures::stream::iter(pieces)).into_response();
                if let Ok(value) = HeaderValue::from_str(&content_type) {
                    response.headers_mut().insert(header::CONTENT_TYPE, value);
                }
                response
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

async fn model_request(
    State(state): State<Arc<MockState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let number = record(&state, &method, uri.path(), &headers, &body);
    if *lock(&state.refuse_streamed_tools) && streams_with_tools(&body) {
        return MockResponse::sse_then_drop(Vec::new(), 0).into_response();
    }
    if *lock(&state.refuse_streamed_tools) && has_assistant_without_text(&body) {
        // llama-cpp-python validates messages with pydantic, which refuses a `null` content,
        // and its `chatml-function-calling` template reads `content`, which fails when it is
        // missing; either way the answer is a 500.
        let message = "1 validation error: {'type': 'string_type', 'loc': ('body', 'messages', 'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid string', 'input': None}";
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(json!({"error": {"message": message, "type": "internal_server_error", "param": null, "code": null}})),
        )
            .into_response();
    }
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

/// Whether a Chat Completions body has an assistant message whose `content` is not a string
/// (`null` or missing).
fn has_assistant_without_text(body: &Bytes) -> bool {
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    body["messages"].as_array().is_some_and(|messages| {
        messages
            .iter()
            .any(|message| message["role"] == "assistant" && !message["content"].is_string())
    })
}

/// Whether a request body asks for a stream and offers tools.
fn streams_with_tools(body: &Bytes) -> bool {
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    body["stream"] == json!(true)
        && body["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty())
}

async fn models(
    State(state): State<Arc<MockState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    record(&state, &method, uri.path(), &headers, &Bytes::new());
    let delay = *lock(&state.models_delay);
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let data = lock(&state.model_entries)
        .clone()
        .unwrap_or_else(|| vec![json!({"id": "mock-model", "object": "model"})]);
    axum::Json(json!({"object": "list", "data": data})).into_response()
}

async fn props(
    State(state): State<Arc<MockState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    record(&state, &method, uri.path(), &headers, &Bytes::new());
    match lock(&state.props).clone() {
        Some(props) => axum::Json(props).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"detail": "Not Found"})),
        )
            .into_response(),
    }
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
    // hyper flushes what it has written whenever the body is pending, so one pending poll
    // between the last frame and the error puts the frames on the wire before the drop (an
    // error at once would close the connection with the frames still in hyper's buffer).
    Box::pin(body.chain(futures::stream::once(async {
        tokio::task::yield_now().await;
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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
