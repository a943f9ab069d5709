//! 2026-07-28 requests over streamable HTTP: a POST without `Mcp-Session-Id` whose body
//! carries the 2026 `_meta` (or whose `MCP-Protocol-Version` header names no session-era
//! version) is served statelessly, in a session of its own that ends with the answer.
//!
//! Checks, in order, each a `400` with a JSON-RPC error carrying the request id: `_meta`
//! missing or without its protocol version or client capabilities (`-32602`); the
//! `MCP-Protocol-Version` header missing or not the `_meta` version (`-32020`); a version
//! other than 2026-07-28 (`-32022`, listing the supported ones); `Mcp-Method` missing or not
//! the body's method, `Mcp-Name` missing or not the body's `params.name` / `params.uri` for
//! `tools/call`, `prompts/get` and `resources/read` (`-32020`; header values are trimmed, and
//! `=?base64?…?=` values decoded, before comparing). An unknown or removed method is `404`
//! with `-32601`. `tools/call` answers on an SSE stream when the client accepts one (its
//! progress and `codex/event` notifications first; closing the stream cancels the call),
//! every other method with one JSON object.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use app_server_protocol::jsonrpc::error_codes::OVERLOADED;
use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::{Value, json};

use super::HttpState;
use super::guard::{PostReply, SESSION_HEADER, VERSION_HEADER};
use super::responses::{json_response, rpc_status, sse_headers};
use super::streams::{Attached, StreamHub};
use crate::mcp::modern::{
    HEADER_MISMATCH, MISSING_CAPABILITY, ModernSessionParts, UNSUPPORTED_VERSION, header_mismatch,
    is_modern_request, read_meta,
};
use crate::mcp::output::{Outbound, Route};
use crate::mcp::protocol::{SUPPORTED_VERSIONS, error_response};
use crate::mcp::session::McpSession;
use tandem_core::principal::Principal;

/// Header naming the request's method.
pub const METHOD_HEADER: &str = "mcp-method";
/// Header naming the tool, prompt or resource a request is about.
pub const NAME_HEADER: &str = "mcp-name";

/// Numbers the sessions of 2026 requests (their ids in logs and thread ownership).
static REQUEST_SESSIONS: AtomicU64 = AtomicU64::new(0);

/// Whether the POST of `request` with `headers` is a 2026 one: no session, and the body's
/// `_meta` in the 2026 form or a protocol version header that no session-era client sends.
pub fn applies(headers: &HeaderMap, request: &Value) -> bool {
    if headers.contains_key(SESSION_HEADER) {
        return false;
    }
    let modern_header = headers
        .get(VERSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|version| !SUPPORTED_VERSIONS.contains(&version.trim()));
    modern_header || is_modern_request(request)
}

/// A header's value with optional whitespace trimmed and a `=?base64?…?=` value decoded;
/// `Err` for a value that is not text or not valid base64 UTF-8.
fn header_text(headers: &HeaderMap, name: &str) -> Option<Result<String, ()>> {
    let value = headers.get(name)?;
    let Ok(text) = value.to_str() else {
        return Some(Err(()));
    };
    let text = text.trim();
    let decoded = match text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or(()),
        None => Ok(text.to_string()),
    };
    Some(decoded)
}

/// The header checks of one request: `Err` with the `HeaderMismatch` to answer.
fn check_headers(
    headers: &HeaderMap,
    method: &str,
    params: &Value,
    meta_version: Option<&str>,
) -> Result<(), JsonRpcErrorBody> {
    match (header_text(headers, VERSION_HEADER), meta_version) {
        (None, _) => {
            return Err(header_mismatch(
                "the MCP-Protocol-Version header is missing",
            ));
        }
        (Some(Ok(header)), Some(body)) if header != body => {
            return Err(header_mismatch(format!(
                "MCP-Protocol-Version header `{}` does not match `_meta` version `{}`",
                short(&header),
                short(body)
            )));
        }
        (Some(Err(())), _) => {
            return Err(header_mismatch(
                "the MCP-Protocol-Version header is not text",
            ));
        }
        _ => {}
    }
    match header_text(headers, METHOD_HEADER) {
        None => return Err(header_mismatch("the Mcp-Method header is missing")),
        Some(Ok(header)) if header == method => {}
        Some(_) => {
            return Err(header_mismatch(format!(
                "the Mcp-Method header does not match the body's method `{}`",
                short(method)
            )));
        }
    }
    let name = match method {
        "tools/call" | "prompts/get" => params.get("name").and_then(Value::as_str),
        "resources/read" => params.get("uri").and_then(Value::as_str),
        _ => None,
    };
    if let Some(name) = name {
        match header_text(headers, NAME_HEADER) {
            None => return Err(header_mismatch("the Mcp-Name header is missing")),
            Some(Ok(header)) if header == name => {}
            Some(_) => {
                return Err(header_mismatch(format!(
                    "the Mcp-Name header does not match the body's `{}`",
                    short(name)
                )));
            }
        }
    }
    Ok(())
}

/// At most 64 bytes of an untrusted string, for an error message.
fn short(text: &str) -> &str {
    let mut end = text.len().min(64);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The HTTP status of a 2026 JSON-RPC answer.
fn status_of(message: &Value) -> StatusCode {
    match message.pointer("/error/code").and_then(Value::as_i64) {
        Some(app_server_protocol::jsonrpc::error_codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(HEADER_MISMATCH | MISSING_CAPABILITY | UNSUPPORTED_VERSION) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Serves one 2026 request (see the module documentation).
pub(super) async fn post(
    state: &Arc<HttpState>,
    headers: &HeaderMap,
    principal: Principal,
    id: RequestId,
    method: String,
    value: Value,
    reply: PostReply,
) -> Response {
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    let refuse = |error: &JsonRpcErrorBody| {
        json_response(StatusCode::BAD_REQUEST, &error_response(Some(&id), error))
    };
    let meta = read_meta(&params);
    if let Err(error) = &meta
        && error.code != UNSUPPORTED_VERSION
    {
        return refuse(error);
    }
    let meta_version = params
        .get("_meta")
        .and_then(|meta| meta.get(crate::mcp::modern::VERSION_KEY))
        .and_then(Value::as_str);
    if let Err(error) = check_headers(headers, &method, &params, meta_version) {
        return refuse(&error);
    }
    let meta = match meta {
        Ok(meta) => meta,
        Err(error) => return refuse(&error),
    };
    let Ok(permit) = state.modern_requests.clone().try_acquire_owned() else {
        return rpc_status(
            StatusCode::SERVICE_UNAVAILABLE,
            Some(&id),
            OVERLOADED,
            "this server runs its maximum of requests at once (--max-sessions); try again later",
        );
    };
    let hub = Arc::new(StreamHub::new(state.http.replay_buffer));
    let number = REQUEST_SESSIONS.fetch_add(1, Ordering::Relaxed);
    let parts = ModernSessionParts {
        session_id: format!("http-{number}"),
        principal,
        config: state.config.clone(),
        store: state.store.clone(),
        outbound: Arc::new(RequestOutbound { hub: hub.clone() }),
        options: state.options.clone(),
        owners: state.owners.clone(),
    };
    let session = McpSession::modern(parts, &meta);
    let streamed = method == "tools/call" && matches!(reply, PostReply::Sse);
    let handler = session.clone().handle_request(id.clone(), method, value);
    let closing = session.clone();
    let work = async move {
        handler.await;
        closing.close().await;
        drop(permit);
    };
    if streamed {
        let attached = hub.open_post_stream_as(id.clone(), false, None);
        state.tasks.spawn(work);
        return stream_response(attached, session, id);
    }
    let answer = hub.open_json_route(id);
    let _guard = hub.connection_guard();
    state.tasks.spawn(work);
    match answer.await {
        Ok(message) => json_response(status_of(&message), &message),
        // Cancelled: no JSON-RPC response exists.
        Err(_) => StatusCode::ACCEPTED.into_response(),
    }
}

/// Cancels the request when the client closes its stream (after the answer, a no-op).
struct CancelOnClose {
    session: Arc<McpSession>,
    id: RequestId,
}

impl Drop for CancelOnClose {
    fn drop(&mut self) {
        let cancel = json!({"params": {"requestId": self.id}});
        self.session
            .handle_notification("notifications/cancelled", &cancel);
    }
}

/// The SSE answer of a `tools/call`: its messages as `data:` events without ids (2026
/// streams are not resumable), then the end of the stream.
fn stream_response(attached: Attached, session: Arc<McpSession>, id: RequestId) -> Response {
    let Attached { events, guard } = attached;
    let closer = CancelOnClose { session, id };
    let stream = futures::stream::unfold(
        (events, guard, closer),
        |(mut events, guard, closer)| async move {
            let event = events.recv().await?;
            let chunk = Bytes::from(format!("data: {}\n\n", event.data));
            Some((Ok::<Bytes, Infallible>(chunk), (events, guard, closer)))
        },
    );
    let mut response = sse_headers(Body::from_stream(stream));
    response.headers_mut().insert(
        "x-accel-buffering",
        axum::http::HeaderValue::from_static("no"),
    );
    response
}

/// The outbound of one 2026 request's session: its request's messages onto its stream or
/// JSON answer; messages about nothing it asked are dropped (there is no GET stream).
struct RequestOutbound {
    hub: Arc<StreamHub>,
}

impl Outbound for RequestOutbound {
    fn send(&self, route: Route, message: Value) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            if matches!(route, Route::Request(_)) {
                let _ = self.hub.route_here(route, message, true);
            }
        })
    }

    fn abandon(&self, id: &RequestId) {
        self.hub.abandon_request(id);
    }
}
