//! 2026-07-28 requests over streamable HTTP: a POST without `Mcp-Session-Id` whose body
//! carries the 2026 `_meta` (or whose `MCP-Protocol-Version` header names no session-era
//! version) is served statelessly, in a session of its own that ends with the answer.
//!
//! Checks, in order, each a `400` with a JSON-RPC error carrying the request id: `_meta`
//! missing or without its protocol version or client capabilities (`-32602`); the
//! `MCP-Protocol-Version` header missing or not the `_meta` version (`-32020`); a version
//! other than 2026-07-28 (`-32022`, listing the supported ones); `Mcp-Method` missing or not
//! the body's method, `Mcp-Name` missing or not the body's `params.name` / `params.uri` /
//! `params.taskId` for `tools/call`, `prompts/get`, `resources/read` and `tasks/*` (`-32020`; header values are trimmed, and
//! `=?base64?…?=` values decoded, before comparing); for `tools/call`, an `Mcp-Param-*` header
//! missing for, or not matching, an argument whose schema names it in `x-mcp-header`
//! (`-32020`). An unknown or removed method is `404`
//! with `-32601`. `tools/call` answers on an SSE stream when the client accepts one (its
//! progress and `codex/event` notifications first; closing the stream cancels the call),
//! every other method with one JSON object.
//!
//! In a cluster, a 2026 call whose result names a thread takes that thread's lease, and a
//! 2026 `codex-reply` on a thread whose lease another live node holds is forwarded to that
//! node ([`Forward::ModernCall`]), which runs it in a session of its own and sends each of its
//! messages back ([`Forward::ModernDeliver`]) to the stream or JSON answer waiting here.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;

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
use crate::mcp::distributed::{Cluster, Forward};
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
        "tasks/get" | "tasks/update" | "tasks/cancel" => {
            params.get("taskId").and_then(Value::as_str)
        }
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

/// Prefix of the headers that mirror tool arguments (`x-mcp-header` in a tool's schema).
const PARAM_HEADER_PREFIX: &str = "mcp-param-";

/// The arguments of each offered tool that HTTP clients mirror in headers: tool name →
/// (argument, header suffix).
pub(super) type ParamHeaders = HashMap<String, Vec<(String, String)>>;

/// The server's [`ParamHeaders`], read once from its tool list (which is fixed for the life
/// of a server).
fn param_headers(state: &HttpState) -> &ParamHeaders {
    state.param_headers.get_or_init(|| {
        let options = &state.options;
        #[allow(unused_mut, reason = "the conformance fixtures add their tools")]
        let mut tools = crate::mcp::tools::list_result(
            options.tools.as_deref(),
            options.history.is_some(),
        )["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        #[cfg(feature = "conformance-fixtures")]
        if options.conformance_fixtures {
            tools.extend(crate::mcp::fixtures::tools());
        }
        let mut headers = HashMap::new();
        for tool in tools {
            let (Some(name), Some(properties)) = (
                tool["name"].as_str(),
                tool.pointer("/inputSchema/properties")
                    .and_then(Value::as_object),
            ) else {
                continue;
            };
            let mirrored: Vec<(String, String)> = properties
                .iter()
                .filter_map(|(argument, schema)| {
                    let header = schema.get("x-mcp-header")?.as_str()?;
                    Some((argument.clone(), header.to_ascii_lowercase()))
                })
                .collect();
            if !mirrored.is_empty() {
                headers.insert(name.to_string(), mirrored);
            }
        }
        headers
    })
}

/// The `Mcp-Param-*` checks of a `tools/call`: an argument whose schema names an
/// `x-mcp-header` must come with that header, whose value (trimmed, and decoded when it is
/// `=?base64?…?=`, which must then be valid padded base64) is the argument's value as text;
/// a header without its argument is a mismatch too. `Err`: the `HeaderMismatch` to answer.
fn check_param_headers(
    state: &HttpState,
    headers: &HeaderMap,
    method: &str,
    params: &Value,
) -> Result<(), JsonRpcErrorBody> {
    if method != "tools/call" {
        return Ok(());
    }
    let Some(mirrored) = params
        .get("name")
        .and_then(Value::as_str)
        .and_then(|name| param_headers(state).get(name))
    else {
        return Ok(());
    };
    check_mirrored_arguments(headers, mirrored, params)
}

/// The `Mcp-Param-*` checks of `params` against the (argument, header suffix) pairs of its
/// tool (see [`check_param_headers`]).
fn check_mirrored_arguments(
    headers: &HeaderMap,
    mirrored: &[(String, String)],
    params: &Value,
) -> Result<(), JsonRpcErrorBody> {
    for (argument, suffix) in mirrored {
        let header = format!("{PARAM_HEADER_PREFIX}{suffix}");
        let body = params
            .pointer(&format!(
                "/arguments/{}",
                argument.replace('~', "~0").replace('/', "~1")
            ))
            .filter(|value| !value.is_null())
            .map(|value| match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            });
        match (header_text(headers, &header), body) {
            (None, None) => {}
            (Some(Ok(value)), Some(body)) if value == body => {}
            (None, Some(_)) => {
                return Err(header_mismatch(format!(
                    "the Mcp-Param-{} header is missing for argument `{}`",
                    short(suffix),
                    short(argument)
                )));
            }
            _ => {
                return Err(header_mismatch(format!(
                    "the Mcp-Param-{} header does not match argument `{}`",
                    short(suffix),
                    short(argument)
                )));
            }
        }
    }
    Ok(())
}

/// At most 64 bytes of an untrusted string, for an error message.
fn short(text: &str) -> &str {
    tandem_core::text::prefix_within(text, 64)
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
    if let Err(error) = check_headers(headers, &method, &params, meta_version)
        .and_then(|()| check_param_headers(state, headers, &method, &params))
    {
        return refuse(&error);
    }
    let meta = match meta {
        Ok(meta) => meta,
        Err(error) => return refuse(&error),
    };
    if method == "subscriptions/listen" && !matches!(reply, PostReply::Sse) {
        return json_response(
            StatusCode::NOT_ACCEPTABLE,
            &error_response(
                Some(&id),
                &crate::rpc_error::invalid_request(
                    "subscriptions/listen answers with a stream: accept text/event-stream",
                ),
            ),
        );
    }
    let owner = super::cluster::owner_elsewhere(state, &state.cluster, &method, &value).await;
    match owner {
        Ok(Some(node)) => return forward_to_owner(state, &principal, id, value, reply, node).await,
        Ok(None) => {}
        Err(error) => return *super::cluster::unavailable(Some(&id), &error),
    }
    let Ok(permit) = state.modern_requests.clone().try_acquire_owned() else {
        return rpc_status(
            StatusCode::SERVICE_UNAVAILABLE,
            Some(&id),
            OVERLOADED,
            "this server runs its maximum of requests at once (--max-sessions); try again later",
        );
    };
    let hub = Arc::new(StreamHub::new(state.http.replay_buffer));
    let number = state.modern_sessions.fetch_add(1, Ordering::Relaxed);
    let parts = ModernSessionParts {
        session_id: format!("http-{number}"),
        principal: principal.clone(),
        config: state.config.clone(),
        store: state.store.clone(),
        outbound: Arc::new(RequestOutbound {
            hub: hub.clone(),
            principal: principal.clone(),
            listeners: state.options.listeners.clone(),
            cluster: state.cluster.clone(),
        }),
        options: state.options.clone(),
        owners: state.owners.clone(),
    };
    let session = McpSession::modern(parts, &meta);
    let streams = matches!(method.as_str(), "tools/call" | "subscriptions/listen");
    let streamed = streams && matches!(reply, PostReply::Sse);
    let handler = session.clone().handle_request(id.clone(), method, value);
    let live = LiveSession::enter(state, number, &session);
    let closing = session.clone();
    let work = async move {
        handler.await;
        closing.close().await;
        drop(live);
        drop(permit);
    };
    if streamed {
        let attached = hub.open_post_stream_as(id.clone(), false, None);
        state.tasks.spawn(work);
        let closer = CancelOnClose {
            session,
            id: id.clone(),
        };
        return stream_response(attached, closer, id).await;
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

/// How long the headers of a `tools/call` stream wait for its first message.
const FIRST_MESSAGE_WAIT: std::time::Duration = std::time::Duration::from_millis(250);

/// The SSE answer of a `tools/call`: its messages as `data:` events without ids (2026
/// streams are not resumable), then the end of the stream. The headers wait for the first
/// message (at most [`FIRST_MESSAGE_WAIT`]): when it is already an error answer, it is sent
/// as one JSON object with the status its code calls for (`400` for `-32021`, ...).
async fn stream_response<Closer: Send + 'static>(
    attached: Attached,
    closer: Closer,
    id: RequestId,
) -> Response {
    let Attached { mut events, guard } = attached;
    // A call that fails at once has its error within microseconds; a slow first message
    // does not hold the headers back for long.
    let first = tokio::time::timeout(FIRST_MESSAGE_WAIT, events.recv())
        .await
        .ok()
        .flatten();
    if let Some(event) = &first
        && let Ok(message) = serde_json::from_str::<Value>(&event.data)
        && message.get("error").is_some()
        && message.get("id") == Some(&json!(id))
    {
        return json_response(status_of(&message), &message);
    }
    let stream = futures::stream::unfold(
        (first, events, guard, closer),
        |(first, mut events, guard, closer)| async move {
            let event = match first {
                Some(event) => event,
                None => events.recv().await?,
            };
            let chunk = Bytes::from(format!("data: {}\n\n", event.data));
            Some((
                Ok::<Bytes, Infallible>(chunk),
                (None, events, guard, closer),
            ))
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
/// JSON answer; the notifications of a request answered with JSON go to the principal's
/// `subscriptions/listen` streams (`crate::mcp::listen`), and messages about nothing it
/// asked are dropped.
struct RequestOutbound {
    hub: Arc<StreamHub>,
    principal: Principal,
    listeners: Arc<crate::mcp::listen::Listeners>,
    cluster: Arc<Cluster>,
}

/// Takes the lease of the thread a result names, so that a `codex-reply` reaching another
/// node finds its owner.
async fn lease_named_thread(cluster: &Cluster, message: &Value) {
    if let Some(thread_id) = message
        .pointer("/result/structuredContent/threadId")
        .and_then(Value::as_str)
        && cluster.take_lease(thread_id).await.is_err()
    {
        tracing::warn!(%thread_id, "thread lease not taken: Redis unavailable");
    }
}

impl Outbound for RequestOutbound {
    fn send(&self, route: Route, message: Value) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            lease_named_thread(&self.cluster, &message).await;
            if matches!(route, Route::Request(_))
                && let Some(unrouted) = self.hub.route_here(route, message, false)
            {
                self.listeners.publish(&self.principal, &unrouted).await;
            }
        })
    }

    fn abandon(&self, id: &RequestId) {
        self.hub.abandon_request(id);
    }
}

/// A 2026 request forwarded to the node owning its thread, waiting here for its messages.
#[derive(Clone)]
pub(super) struct ForwardedHere {
    hub: Arc<StreamHub>,
    id: RequestId,
}

/// Forgets a forwarded request when its client goes (the owner's call goes on).
struct ForgetOnClose {
    state: Arc<HttpState>,
    tag: String,
}

impl Drop for ForgetOnClose {
    fn drop(&mut self) {
        tandem_core::sync::lock(&self.state.modern_forwards).remove(&self.tag);
    }
}

/// Sends 2026 request `value` of `principal` to `node`, which owns its thread, and answers it
/// with the messages that node sends back.
async fn forward_to_owner(
    state: &Arc<HttpState>,
    principal: &Principal,
    id: RequestId,
    value: Value,
    reply: PostReply,
    node: String,
) -> Response {
    let hub = Arc::new(StreamHub::new(state.http.replay_buffer));
    let number = state.modern_sessions.fetch_add(1, Ordering::Relaxed);
    let tag = format!("{}/{number}", state.cluster.node_id());
    tandem_core::sync::lock(&state.modern_forwards).insert(
        tag.clone(),
        ForwardedHere {
            hub: hub.clone(),
            id: id.clone(),
        },
    );
    let closer = ForgetOnClose {
        state: state.clone(),
        tag: tag.clone(),
    };
    // The routes exist before the owner can answer.
    let streamed = matches!(reply, PostReply::Sse);
    let attached = streamed.then(|| hub.open_post_stream_as(id.clone(), false, None));
    let answer = (!streamed).then(|| hub.open_json_route(id.clone()));
    let forward = Forward::ModernCall {
        tag,
        principal: principal.name().to_string(),
        message: value,
        reply_node: state.cluster.node_id().to_string(),
    };
    tracing::info!(%id, %node, "2026 request forwarded to the thread's owner");
    if let Err(error) = state.cluster.forward(Some(&node), &forward).await {
        return *super::cluster::unavailable(Some(&id), &error);
    }
    if let Some(attached) = attached {
        return stream_response(attached, closer, id).await;
    }
    let _guard = hub.connection_guard();
    let outcome = match answer {
        Some(answer) => answer.await,
        None => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    drop(closer);
    match outcome {
        Ok(message) => json_response(status_of(&message), &message),
        Err(_) => StatusCode::ACCEPTED.into_response(),
    }
}

/// Hands a message of a request forwarded from here (`None`: it ended unanswered) to the
/// stream or JSON answer waiting for it.
pub(super) fn deliver_forwarded(state: &HttpState, tag: &str, message: Option<Value>) {
    let Some(forwarded) = tandem_core::sync::lock(&state.modern_forwards)
        .get(tag)
        .cloned()
    else {
        return;
    };
    let ended = message
        .as_ref()
        .is_none_or(|message| message.get("result").is_some() || message.get("error").is_some());
    match message {
        Some(message) => {
            forwarded
                .hub
                .route_here(Route::Request(forwarded.id.clone()), message, false);
        }
        None => forwarded.hub.abandon_request(&forwarded.id),
    }
    if ended {
        tandem_core::sync::lock(&state.modern_forwards).remove(tag);
    }
}

/// Runs a 2026 request another node forwarded here (it names a thread this node owns) and
/// sends its messages back to `reply_node` under `tag`.
pub(super) async fn run_forwarded(
    state: Arc<HttpState>,
    tag: String,
    principal: String,
    value: Value,
    reply_node: String,
) {
    let cluster = state.cluster.clone();
    let outbound = Arc::new(ForwardedOutbound {
        cluster: cluster.clone(),
        reply_node,
        tag,
    });
    let id = value
        .get("id")
        .cloned()
        .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    let (Some(id), Some(method)) = (id, method) else {
        outbound.abandon(&RequestId::Integer(0));
        return;
    };
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    let meta = match read_meta(&params) {
        Ok(meta) => meta,
        Err(error) => {
            let reply = error_response(Some(&id), &error);
            outbound.send(Route::Request(id), reply).await;
            return;
        }
    };
    let Ok(permit) = state.modern_requests.clone().try_acquire_owned() else {
        let error = crate::rpc_error::with_code(
            OVERLOADED,
            "the thread's node runs its maximum of requests at once; try again later",
        );
        outbound
            .send(
                Route::Request(id.clone()),
                error_response(Some(&id), &error),
            )
            .await;
        return;
    };
    let number = state.modern_sessions.fetch_add(1, Ordering::Relaxed);
    let parts = ModernSessionParts {
        session_id: format!("http-{number}"),
        principal: Principal::named(&principal),
        config: state.config.clone(),
        store: state.store.clone(),
        outbound,
        options: state.options.clone(),
        owners: state.owners.clone(),
    };
    let session = McpSession::modern(parts, &meta);
    let live = LiveSession::enter(&state, number, &session);
    session.clone().handle_request(id, method, value).await;
    session.close().await;
    drop(live);
    drop(permit);
}

/// A 2026 request's session in [`HttpState::modern_live`] until dropped, so that the leases
/// of the threads it runs are renewed (`cluster::renew_leases`).
struct LiveSession {
    state: Arc<HttpState>,
    number: u64,
}

impl LiveSession {
    fn enter(state: &Arc<HttpState>, number: u64, session: &Arc<McpSession>) -> LiveSession {
        tandem_core::sync::lock(&state.modern_live).insert(number, Arc::downgrade(session));
        LiveSession {
            state: state.clone(),
            number,
        }
    }
}

impl Drop for LiveSession {
    fn drop(&mut self) {
        tandem_core::sync::lock(&self.state.modern_live).remove(&self.number);
    }
}

/// The outbound of a 2026 request run here for a client of another node: its request's
/// messages go back to that node; nothing else is sent.
struct ForwardedOutbound {
    cluster: Arc<Cluster>,
    reply_node: String,
    tag: String,
}

impl ForwardedOutbound {
    async fn deliver(&self, message: Option<Value>) {
        let forward = Forward::ModernDeliver {
            tag: self.tag.clone(),
            message,
        };
        if self
            .cluster
            .forward(Some(&self.reply_node), &forward)
            .await
            .is_err()
        {
            tracing::warn!(tag = %self.tag, "message of a forwarded 2026 request lost");
        }
    }
}

impl Outbound for ForwardedOutbound {
    fn send(&self, route: Route, message: Value) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            if matches!(route, Route::Request(_)) {
                lease_named_thread(&self.cluster, &message).await;
                self.deliver(Some(message)).await;
            }
        })
    }

    fn abandon(&self, _id: &RequestId) {
        let forward = Forward::ModernDeliver {
            tag: self.tag.clone(),
            message: None,
        };
        let cluster = self.cluster.clone();
        let node = self.reply_node.clone();
        tokio::spawn(async move { cluster.forward(Some(&node), &forward).await });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn mirrored_arguments_need_their_header_with_the_same_value() {
        let mirrored = vec![("region".to_string(), "region".to_string())];
        let params = json!({"name": "t", "arguments": {"region": "Hello"}});
        let check = |pairs: &[(&'static str, &str)]| {
            check_mirrored_arguments(&headers(pairs), &mirrored, &params)
                .map_err(|error| error.code)
        };
        assert_eq!(check(&[("mcp-param-region", "Hello")]), Ok(()));
        assert_eq!(
            check(&[("mcp-param-region", " =?base64?SGVsbG8=?= ")]),
            Ok(())
        );
        // Bad padding, characters outside the alphabet, another value, no header.
        assert_eq!(
            check(&[("mcp-param-region", "=?base64?SGVsbG8?=")]),
            Err(HEADER_MISMATCH)
        );
        assert_eq!(
            check(&[("mcp-param-region", "=?base64?SGVs!!!bG8=?=")]),
            Err(HEADER_MISMATCH)
        );
        assert_eq!(check(&[("mcp-param-region", "Bye")]), Err(HEADER_MISMATCH));
        assert_eq!(check(&[]), Err(HEADER_MISMATCH));
        // A value without the whole wrapper is literal.
        let literal = json!({"name": "t", "arguments": {"region": "=?base64?SGVsbG8="}});
        let header = headers(&[("mcp-param-region", "=?base64?SGVsbG8=")]);
        assert!(check_mirrored_arguments(&header, &mirrored, &literal).is_ok());
        // A header without its argument does not match either.
        let absent = json!({"name": "t", "arguments": {}});
        let header = headers(&[("mcp-param-region", "Hello")]);
        assert!(check_mirrored_arguments(&header, &mirrored, &absent).is_err());
    }
}
