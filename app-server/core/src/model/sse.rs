//! HTTP and SSE plumbing shared by the Responses and Chat Completions clients.
//!
//! [`HttpProvider`] owns the `reqwest` client of one provider: it POSTs a JSON body, turns a
//! non-2xx answer into [`ModelError::Status`], and hands back the body as a stream of SSE
//! events with the idle timeout applied to every event. [`sse_model_stream`] drives a
//! wire-specific [`SseDecoder`] over that stream and yields [`ModelEvent`]s.
//!
//! A provider is not trusted with the server's memory: bodies read whole stop at
//! [`MAX_ANSWER_BYTES`], event-stream lines at `sse_parser::MAX_LINE_BYTES`, and decoders
//! refuse indices above [`MAX_STREAM_INDEX`]; each breach fails the request with
//! [`ModelError::OverLimit`], which is not retried.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Once};
use std::time::Duration;

use futures::{Stream, StreamExt};
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use crate::account::AccountState;
use crate::config::ProviderConfig;
use crate::model::error::StatusError;
use crate::model::retry::MAX_RETRY_AFTER;
pub use crate::model::sse_parser::SseEvent as Event;
use crate::model::sse_parser::{MAX_LINE_BYTES, SseError, SseParser};
use crate::model::{ModelError, ModelEvent, ModelStream};

/// How long to wait for a TCP/TLS connection before giving up on an attempt.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long `GET /models` may take before falling back to the configured list.
const LIST_MODELS_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest provider error text kept in an error (bodies can be whole HTML pages).
const MAX_ERROR_TEXT: usize = 2000;

/// Largest body read whole from a provider: a non-streamed answer (`stream = false`), the
/// model list, the server properties (64 MiB). The answer is parsed as one JSON value, which
/// takes a few times its size in memory; a real answer is at most a few MiB.
pub(crate) const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// Largest error body read (1 MiB): only its message is kept, cut to [`MAX_ERROR_TEXT`].
const MAX_ERROR_BODY_BYTES: usize = 1024 * 1024;

/// Highest `output_index`, `summary_index` or `content_index` of a Responses stream, and
/// `tool_calls[].index` of a Chat Completions stream, accepted from a provider. The engine
/// keeps one slot per summary or content part up to the highest index it saw, so an index
/// costs memory; every index is checked alike, and real responses use single digits.
pub(crate) const MAX_STREAM_INDEX: u64 = 1024;

/// What a decoder wants after an event.
pub enum Flow {
    /// Keep reading.
    Continue,
    /// The response is complete; stop reading.
    Complete,
}

/// Turns one wire's SSE events into [`ModelEvent`]s.
pub trait SseDecoder: Send + 'static {
    /// Handles one event, pushing the model events it produces onto `out`.
    fn on_event(
        &mut self,
        event: Event,
        out: &mut VecDeque<ModelEvent>,
    ) -> Result<Flow, ModelError>;

    /// The body ended before [`Flow::Complete`]: push the final events, or fail.
    fn on_end(&mut self, out: &mut VecDeque<ModelEvent>) -> Result<(), ModelError>;
}

/// The HTTP side of one configured provider.
pub struct HttpProvider {
    /// The provider id (its `[model_providers.<id>]` key).
    id: String,
    client: reqwest::Client,
    base_url: String,
    name: String,
    env_key: Option<String>,
    api_key: Option<String>,
    /// Where the stored key comes from and rate limits go; `None` uses the environment only.
    account: Option<Arc<AccountState>>,
    headers: HeaderMap,
    idle_timeout: Duration,
    idle_timeout_ms: u64,
    models: Vec<String>,
}

/// The SSE events of one response body.
pub struct SseEvents {
    body: Pin<Box<dyn Stream<Item = reqwest::Result<tokio_util::bytes::Bytes>> + Send>>,
    parser: SseParser,
    /// The idle timer, re-armed only when the parser runs out of buffered events and the
    /// next body chunk is awaited (not once per event).
    idle: Pin<Box<tokio::time::Sleep>>,
    idle_timeout: Duration,
    idle_timeout_ms: u64,
}

impl HttpProvider {
    /// Builds the HTTP client for `provider`. Without `account`, the API key is read once,
    /// here; with it, at every request (the environment first, then the stored key).
    pub fn new(
        provider: &ProviderConfig,
        account: Option<Arc<AccountState>>,
    ) -> Result<Self, ModelError> {
        install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|error| ModelError::Config {
                detail: format!("cannot build the HTTP client: {}", error_chain(&error)),
            })?;
        let mut headers = HeaderMap::new();
        for (name, value) in &provider.http_headers {
            let header_name =
                HeaderName::from_bytes(name.as_bytes()).map_err(|error| ModelError::Config {
                    detail: format!("invalid header name `{name}`: {error}"),
                })?;
            let header_value =
                HeaderValue::from_str(value).map_err(|error| ModelError::Config {
                    detail: format!("invalid value for header `{name}`: {error}"),
                })?;
            headers.insert(header_name, header_value);
        }
        let name = if provider.name.is_empty() {
            provider.id.clone()
        } else {
            provider.name.clone()
        };
        Ok(Self {
            id: provider.id.clone(),
            client,
            base_url: provider.base_url.trim_end_matches('/').to_string(),
            name,
            env_key: provider.env_key.clone(),
            api_key: provider.api_key(),
            account,
            headers,
            idle_timeout: Duration::from_millis(provider.stream_idle_timeout_ms),
            idle_timeout_ms: provider.stream_idle_timeout_ms,
            models: provider.models.clone(),
        })
    }

    /// The provider id (its `[model_providers.<id>]` key).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// What to add to a "stream disconnected" error of a streamed request that offered tools.
    fn stream_setting_hint(&self) -> String {
        format!(
            " (the provider closed the stream before any output while tools were offered; if its server cannot stream tool calls, set `stream = false` under `[model_providers.{}]` in config.toml)",
            self.id
        )
    }

    /// `{base_url}/{path}`.
    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url)
    }

    /// Adds the provider headers and the bearer token.
    fn authorize(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::RequestBuilder, ModelError> {
        let request = request.headers(self.headers.clone());
        let api_key = match &self.account {
            Some(account) => account.api_key_for(self.env_key.as_deref()),
            None => self.api_key.clone(),
        };
        match (&api_key, &self.env_key) {
            (Some(key), _) => Ok(request.header(AUTHORIZATION, format!("Bearer {key}"))),
            (None, Some(env_key)) => Err(ModelError::MissingApiKey {
                provider: self.name.clone(),
                env_key: env_key.clone(),
            }),
            (None, None) => Ok(request),
        }
    }

    /// POSTs `body` to `{base_url}/{path}` and returns the SSE events of a 2xx answer.
    pub async fn post_sse(
        &self,
        path: &str,
        model: &str,
        body: &Value,
    ) -> Result<SseEvents, ModelError> {
        let url = self.url(path);
        let request = self
            .authorize(self.client.post(&url))?
            .header(ACCEPT, "text/event-stream")
            .json(body);
        let response = match tokio::time::timeout(self.idle_timeout, request.send()).await {
            Err(_elapsed) => {
                return Err(ModelError::IdleTimeout {
                    timeout_ms: self.idle_timeout_ms,
                });
            }
            Ok(Err(error)) => {
                return Err(ModelError::Connection {
                    provider: self.name.clone(),
                    url,
                    detail: error_chain(&error),
                });
            }
            Ok(Ok(response)) => response,
        };
        if let Some(account) = &self.account
            && let Some(snapshot) = crate::account::rate_limits_from_headers(
                response.headers(),
                &self.id,
                &self.name,
                crate::clock::unix_seconds(),
            )
        {
            account.record_rate_limits(snapshot);
        }
        if !response.status().is_success() {
            return Err(self.status_error(response, model).await);
        }
        Ok(SseEvents {
            body: Box::pin(response.bytes_stream()),
            parser: SseParser::new(),
            idle: Box::pin(tokio::time::sleep(self.idle_timeout)),
            idle_timeout: self.idle_timeout,
            idle_timeout_ms: self.idle_timeout_ms,
        })
    }

    /// POSTs `body` to `{base_url}/{path}` and returns the JSON body of a 2xx answer (a
    /// provider with `stream = false`). The idle timeout bounds the whole exchange.
    pub async fn post_json(
        &self,
        path: &str,
        model: &str,
        body: &Value,
    ) -> Result<Value, ModelError> {
        let url = self.url(path);
        let request = self
            .authorize(self.client.post(&url))?
            .header(ACCEPT, "application/json")
            .json(body);
        let exchange = async {
            let response = request
                .send()
                .await
                .map_err(|error| ModelError::Connection {
                    provider: self.name.clone(),
                    url: url.clone(),
                    detail: error_chain(&error),
                })?;
            if !response.status().is_success() {
                return Err(self.status_error(response, model).await);
            }
            let body = match read_body(response, MAX_ANSWER_BYTES).await {
                Ok(body) => body,
                Err(BodyError::TooLarge) => {
                    return Err(over_limit(
                        "model answer",
                        "the answer body",
                        MAX_ANSWER_BYTES,
                    ));
                }
                Err(BodyError::Transport(error)) => {
                    return Err(ModelError::StreamDisconnected {
                        detail: error.to_string(),
                        transport_error: Some(error_chain(&error)),
                    });
                }
            };
            serde_json::from_slice(&body).map_err(|error| ModelError::InvalidResponse {
                detail: format!(
                    "the answer is not JSON ({error}): {}",
                    truncate(&String::from_utf8_lossy(&body))
                ),
            })
        };
        match tokio::time::timeout(self.idle_timeout, exchange).await {
            Err(_elapsed) => Err(ModelError::AnswerTimeout {
                timeout_ms: self.idle_timeout_ms,
                provider_id: self.id().to_string(),
            }),
            Ok(result) => result,
        }
    }

    /// Reads a non-2xx answer into [`ModelError::Status`].
    async fn status_error(&self, response: reqwest::Response, model: &str) -> ModelError {
        let status = response.status();
        let retry_after = retry_after(response.headers());
        // An error body over the cap is dropped: the status then explains the failure.
        let body = match tokio::time::timeout(
            self.idle_timeout,
            read_body(response, MAX_ERROR_BODY_BYTES),
        )
        .await
        {
            Ok(Ok(body)) => String::from_utf8_lossy(&body).into_owned(),
            Ok(Err(_)) | Err(_) => String::new(),
        };
        let (message, code) = parse_error_body(&body);
        let message = message.unwrap_or_else(|| {
            status
                .canonical_reason()
                .unwrap_or("unknown status")
                .to_lowercase()
        });
        ModelError::Status(Box::new(StatusError {
            status: status.as_u16(),
            message,
            code,
            retry_after,
            provider: self.name.clone(),
            model: model.to_string(),
            env_key: self.env_key.clone(),
        }))
    }

    /// The model slugs from `GET {base_url}/models`, or the configured list when that fails.
    pub async fn list_models(&self) -> Vec<String> {
        match self.fetch_models().await {
            Ok(models) => models,
            Err(error) => {
                tracing::debug!(provider = %self.name, %error, "listing models failed; using the configured list");
                self.models.clone()
            }
        }
    }

    async fn fetch_models(&self) -> Result<Vec<String>, ModelError> {
        Ok(self
            .fetch_model_entries()
            .await?
            .iter()
            .filter_map(|model| model.get("id").and_then(Value::as_str))
            .map(str::to_string)
            .collect())
    }

    /// The entries of `GET {base_url}/models` (its `data` array), as the provider sent them.
    pub async fn fetch_model_entries(&self) -> Result<Vec<Value>, ModelError> {
        match self.get_json(self.url("models"), "model list").await? {
            Value::Object(mut body) => match body.remove("data") {
                Some(Value::Array(data)) => Ok(data),
                _ => Err(ModelError::InvalidResponse {
                    detail: "model list without `data` array".to_string(),
                }),
            },
            _ => Err(ModelError::InvalidResponse {
                detail: "model list without `data` array".to_string(),
            }),
        }
    }

    /// llama.cpp's server properties, `GET /props` at the server's root (the base URL without
    /// its `/v1`), which say the context window the server runs with.
    pub async fn fetch_server_props(&self) -> Result<Value, ModelError> {
        let root = self.base_url.strip_suffix("/v1").unwrap_or(&self.base_url);
        self.get_json(format!("{root}/props"), "server properties")
            .await
    }

    /// The JSON body of a 2xx answer to `GET url`; `what` names it in errors.
    async fn get_json(&self, url: String, what: &str) -> Result<Value, ModelError> {
        let request = self
            .authorize(self.client.get(&url))?
            .timeout(LIST_MODELS_TIMEOUT);
        let response = request
            .send()
            .await
            .map_err(|error| ModelError::Connection {
                provider: self.name.clone(),
                url,
                detail: error_chain(&error),
            })?;
        if !response.status().is_success() {
            return Err(self.status_error(response, "").await);
        }
        let body = match read_body(response, MAX_ANSWER_BYTES).await {
            Ok(body) => body,
            Err(BodyError::TooLarge) => {
                return Err(over_limit(
                    "model provider",
                    &format!("the {what}"),
                    MAX_ANSWER_BYTES,
                ));
            }
            Err(BodyError::Transport(error)) => {
                return Err(ModelError::InvalidResponse {
                    detail: format!("bad {what}: {}", error_chain(&error)),
                });
            }
        };
        serde_json::from_slice(&body).map_err(|error| ModelError::InvalidResponse {
            detail: format!("bad {what}: {error}"),
        })
    }
}

impl SseEvents {
    /// The next event; `Ok(None)` at the end of the body. The idle timeout bounds each wait
    /// for body bytes; events already buffered are returned without waiting.
    pub async fn next(&mut self) -> Result<Option<Event>, ModelError> {
        loop {
            match self.parser.next_event() {
                Ok(Some(event)) => return Ok(Some(event)),
                Ok(None) => {}
                Err(error) => return Err(stream_error(error)),
            }
            self.idle
                .as_mut()
                .reset(tokio::time::Instant::now() + self.idle_timeout);
            let chunk = tokio::select! {
                biased;
                chunk = self.body.next() => chunk,
                () = self.idle.as_mut() => {
                    return Err(ModelError::IdleTimeout {
                        timeout_ms: self.idle_timeout_ms,
                    });
                }
            };
            match chunk {
                // The body ended; an event still open is dropped, as the standard says.
                None => return Ok(None),
                Some(Ok(bytes)) => self.parser.push(&bytes),
                Some(Err(error)) => {
                    return Err(ModelError::StreamDisconnected {
                        detail: error.to_string(),
                        transport_error: Some(error_chain(&error)),
                    });
                }
            }
        }
    }
}

/// Streams the model events of one POST: sends the request, then runs `decoder` over the
/// SSE events until it reports completion, the body ends, or an error occurs.
pub fn sse_model_stream<D: SseDecoder>(
    http: Arc<HttpProvider>,
    path: &'static str,
    model: String,
    body: Value,
    decoder: D,
) -> ModelStream {
    let offers_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| !tools.is_empty());
    let driver = Driver {
        stream_setting_hint: offers_tools.then(|| http.stream_setting_hint()),
        received: false,
        http,
        path,
        model,
        body,
        events: None,
        decoder,
        pending: VecDeque::new(),
        error: None,
        finished: false,
    };
    Box::pin(futures::stream::unfold(driver, |mut driver| async move {
        let item = driver.next().await?;
        Some((item, driver))
    }))
}

/// The state of one [`sse_model_stream`].
struct Driver<D> {
    /// Added to a disconnect before any event when the request offered tools: some local
    /// servers refuse to stream tool calls and just close the stream.
    stream_setting_hint: Option<String>,
    /// Whether the body carried any SSE event.
    received: bool,
    http: Arc<HttpProvider>,
    path: &'static str,
    model: String,
    body: Value,
    events: Option<SseEvents>,
    decoder: D,
    /// Decoded events not yielded yet.
    pending: VecDeque<ModelEvent>,
    /// An error to yield once `pending` is drained.
    error: Option<ModelError>,
    /// No more reading: the response completed or failed.
    finished: bool,
}

impl<D: SseDecoder> Driver<D> {
    async fn next(&mut self) -> Option<Result<ModelEvent, ModelError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if let Some(mut error) = self.error.take() {
                if let (false, Some(hint), ModelError::StreamDisconnected { detail, .. }) =
                    (self.received, &self.stream_setting_hint, &mut error)
                {
                    detail.push_str(hint);
                }
                return Some(Err(error));
            }
            if self.finished {
                return None;
            }
            if self.events.is_none() {
                match self.http.post_sse(self.path, &self.model, &self.body).await {
                    Ok(events) => self.events = Some(events),
                    Err(error) => {
                        self.finished = true;
                        return Some(Err(error));
                    }
                }
            }
            let events = self.events.as_mut()?;
            let result = match events.next().await {
                Ok(Some(event)) => {
                    self.received = true;
                    self.decoder.on_event(event, &mut self.pending)
                }
                Ok(None) => self
                    .decoder
                    .on_end(&mut self.pending)
                    .map(|()| Flow::Complete),
                Err(error) => Err(error),
            };
            match result {
                Ok(Flow::Continue) => {}
                Ok(Flow::Complete) => self.finish(),
                Err(error) => {
                    self.error = Some(error);
                    self.finish();
                }
            }
        }
    }

    /// Stops reading and closes the connection.
    fn finish(&mut self) {
        self.finished = true;
        self.events = None;
    }
}

/// Why a body read whole was not read.
enum BodyError {
    /// It passed the limit; the rest was not read.
    TooLarge,
    /// The connection failed.
    Transport(reqwest::Error),
}

/// The body of `response`, read until it ends or passes `limit` bytes. A `Content-Length`
/// over the limit fails before anything is read.
async fn read_body(mut response: reqwest::Response, limit: usize) -> Result<Vec<u8>, BodyError> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(BodyError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The error for an event stream the parser refused.
fn stream_error(error: SseError) -> ModelError {
    match error {
        SseError::InvalidUtf8 => ModelError::InvalidResponse {
            detail: format!("malformed event stream: {error}"),
        },
        SseError::LineTooLong => over_limit("model stream", "an event-stream line", MAX_LINE_BYTES),
        SseError::EventTooLarge => {
            over_limit("model stream", "the data of one event", MAX_LINE_BYTES)
        }
    }
}

/// `what` from `context` is larger than `limit` bytes.
fn over_limit(context: &'static str, what: &str, limit: usize) -> ModelError {
    ModelError::OverLimit {
        context,
        what: what.to_string(),
        limit: format!("{} MiB", limit / (1024 * 1024)),
    }
}

/// Refuses a stream index (`field` names it) above [`MAX_STREAM_INDEX`].
pub(crate) fn check_stream_index(field: &str, index: u64) -> Result<(), ModelError> {
    if index <= MAX_STREAM_INDEX {
        return Ok(());
    }
    Err(ModelError::OverLimit {
        context: "model stream",
        what: format!("{field} {index}"),
        limit: MAX_STREAM_INDEX.to_string(),
    })
}

/// Installs `ring` as the process-wide rustls provider (reqwest is built without one).
fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Another component may have installed a provider first; any provider will do.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Fuzzing hook: `chunks` of a response body through the frame splitting, SSE parsing and
/// `decoder` that [`sse_model_stream`] runs on a real body. Returns the model events and the
/// error that ended the body, if any.
#[cfg(feature = "fuzzing")]
pub fn decode_body_for_fuzzing<D: SseDecoder>(
    chunks: &[&[u8]],
    mut decoder: D,
) -> (Vec<ModelEvent>, Option<ModelError>) {
    let mut parser = SseParser::new();
    let mut chunks = chunks.iter();
    let mut out = VecDeque::new();
    let error = loop {
        let next = match parser.next_event() {
            Ok(Some(event)) => Some(Ok(event)),
            Ok(None) => match chunks.next() {
                Some(chunk) => {
                    parser.push(chunk);
                    continue;
                }
                None => None,
            },
            Err(error) => Some(Err(error)),
        };
        let result = match next {
            Some(Ok(event)) => decoder.on_event(event, &mut out),
            Some(Err(error)) => Err(stream_error(error)),
            None => decoder.on_end(&mut out).map(|()| Flow::Complete),
        };
        match result {
            Ok(Flow::Continue) => {}
            Ok(Flow::Complete) => break None,
            Err(error) => break Some(error),
        }
    };
    (out.into(), error)
}

/// Fuzzing hook: the delay of a non-2xx answer with these `retry-after` and `retry-after-ms`
/// header values.
#[cfg(feature = "fuzzing")]
pub fn retry_after_for_fuzzing(seconds: &str, millis: &str) -> Option<Duration> {
    let mut headers = HeaderMap::new();
    for (name, value) in [("retry-after", seconds), ("retry-after-ms", millis)] {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    retry_after(&headers)
}

/// `Retry-After` (seconds) or `retry-after-ms`, clamped to [`MAX_RETRY_AFTER`].
///
/// The values come from the network: negative, non-numeric and non-finite ones are ignored,
/// and huge ones (`1e20`) are clamped instead of overflowing a [`Duration`].
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<f64>().ok())
            .filter(|value| value.is_finite() && *value >= 0.0)
    };
    let seconds = match header("retry-after-ms") {
        Some(millis) => millis / 1000.0,
        None => header("retry-after")?,
    };
    Some(clamped_seconds(seconds, MAX_RETRY_AFTER))
}

/// `seconds` as a duration no longer than `max`; anything a [`Duration`] cannot hold
/// (negative, NaN, overflowing) becomes zero or `max`.
pub fn clamped_seconds(seconds: f64, max: Duration) -> Duration {
    if seconds.is_nan() || seconds <= 0.0 {
        return Duration::ZERO;
    }
    if seconds >= max.as_secs_f64() {
        return max;
    }
    Duration::try_from_secs_f64(seconds).map_or(max, |duration| duration.min(max))
}

/// The message and code of an error body: `{"error":{"message","code"|"type"}}`,
/// `{"error":"…"}`, `{"message":"…"}`, or the text itself.
pub fn parse_error_body(body: &str) -> (Option<String>, Option<String>) {
    let Ok(json) = serde_json::from_str::<Value>(body) else {
        let text = body.trim();
        if text.is_empty() {
            return (None, None);
        }
        return (Some(truncate(text)), None);
    };
    error_fields(json.get("error").unwrap_or(&json))
}

/// The message and code of an error object (or string).
pub fn error_fields(error: &Value) -> (Option<String>, Option<String>) {
    if let Some(text) = error.as_str() {
        return (Some(truncate(text)), None);
    }
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(truncate)
        .or_else(|| Some(truncate(&error.to_string())).filter(|_| !error.is_null()));
    let code = ["code", "type"]
        .iter()
        .filter_map(|key| error.get(key))
        .find_map(|code| match code {
            Value::String(code) => Some(code.clone()),
            Value::Number(code) => Some(code.to_string()),
            _ => None,
        });
    (message, code)
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(MAX_ERROR_TEXT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// An error and its causes, joined with `: ` (reqwest's own message is only the top level).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
