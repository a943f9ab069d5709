//! How the HTTP transport writes its answers: JSON-RPC error statuses, JSON bodies and
//! server-sent event streams.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::jsonrpc::error_codes::INVALID_REQUEST;
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::mcp::distributed::metrics::Metrics;
use crate::mcp::http::guard::Refusal;
use crate::mcp::http::streams::{Attached, SseEvent};
use crate::mcp::protocol::error_response;
use crate::rpc_error;

pub(super) fn rpc_status(
    status: StatusCode,
    id: Option<&RequestId>,
    code: i64,
    message: &str,
) -> Response {
    json_response(
        status,
        &error_response(id, &rpc_error::with_code(code, message)),
    )
}

/// The answer to a request the access checks refused: 403 (Host, Origin) or 401 with
/// `WWW-Authenticate: Bearer`.
pub(super) fn refused(refusal: Refusal) -> Response {
    match refusal {
        Refusal::Host(host) => {
            tracing::warn!(%host, "refused a request for another host");
            rpc_status(
                StatusCode::FORBIDDEN,
                None,
                INVALID_REQUEST,
                &format!("host not allowed: {host}"),
            )
        }
        Refusal::Origin(origin) => {
            tracing::warn!(%origin, "refused a request from another origin");
            rpc_status(
                StatusCode::FORBIDDEN,
                None,
                INVALID_REQUEST,
                &format!("origin not allowed: {origin}"),
            )
        }
        Refusal::Unauthorized => {
            tracing::warn!("refused a request without a valid bearer token");
            let mut response = rpc_status(
                StatusCode::UNAUTHORIZED,
                None,
                INVALID_REQUEST,
                "missing or invalid bearer token",
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
    }
}

pub(super) fn json_response(status: StatusCode, message: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        message.to_string(),
    )
        .into_response()
}

pub(super) fn encode_event(event: &SseEvent, retry: Option<Duration>) -> Bytes {
    let mut text = String::with_capacity(event.data.len() + 32);
    text.push_str("id: ");
    text.push_str(&event.id);
    text.push('\n');
    if let Some(retry) = retry {
        text.push_str(&format!("retry: {}\n", retry.as_millis()));
    }
    text.push_str("data: ");
    text.push_str(&event.data);
    text.push_str("\n\n");
    Bytes::from(text)
}

pub(super) fn sse_headers(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// An SSE body with one event and no id (the `initialize` answer).
pub(super) fn sse_single(message: &Value) -> Response {
    sse_headers(Body::from(format!("data: {message}\n\n")))
}

/// An SSE body fed by `attached`, with keep-alive comments; `retry` goes with the first
/// event (the priming event).
pub(super) fn sse_response(
    attached: Attached,
    keep_alive: Duration,
    retry: Option<Duration>,
    metrics: &Arc<Metrics>,
) -> Response {
    let Attached { events, guard } = attached;
    let metrics = metrics.clone();
    let ticks = tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive);
    let stream = futures::stream::unfold(
        (events, ticks, guard, retry),
        move |(mut events, mut ticks, guard, mut retry)| {
            let metrics = metrics.clone();
            async move {
                let chunk = tokio::select! {
                    event = events.recv() => {
                        metrics.events_sent.inc();
                        encode_event(&event?, retry.take())
                    }
                    _ = ticks.tick() => Bytes::from_static(b": keep-alive\n\n"),
                };
                Some((
                    Ok::<Bytes, Infallible>(chunk),
                    (events, ticks, guard, retry),
                ))
            }
        },
    );
    sse_headers(Body::from_stream(stream))
}
