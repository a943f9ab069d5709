//! Streamable HTTP transport (`tandem mcp-server --http ADDR`): one endpoint, `/mcp`, many
//! sessions.
//!
//! POST carries client messages: `initialize` creates a session (`Mcp-Session-Id`), other
//! requests are answered with an SSE stream or one JSON object, notifications and responses
//! with 202. GET opens the session's standalone SSE stream or resumes a stream with
//! `Last-Event-ID`. DELETE ends the session. Status codes follow the table in the design
//! notes: 400 (no session id, bad protocol version header, malformed JSON), 401 (bearer
//! token), 403 (Host/Origin), 404 (unknown, expired or deleted session, or another
//! principal's), 405 (other methods), 406 (Accept), 409 (second GET stream), 413 (body too
//! large), 415 (Content-Type), 503 (session limit reached). A POST in the 2026-07-28 form
//! needs no session: `modern.rs` serves it statelessly.
//!
//! Every request is authenticated first (`auth`): its bearer token names the principal it
//! acts for, and a session answers only the principal that created it.

mod cluster;
mod cluster_resume;
mod cors;
pub mod guard;
mod modern;
mod responses;
pub mod sessions;
pub mod streams;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::jsonrpc::error_codes::{
    INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, OVERLOADED, PARSE_ERROR,
};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;
use tokio_util::task::TaskTracker;

use crate::http_accept::{self, ConnectionLimits};
use crate::listener_auth::{self as auth, Authentication};
use crate::mcp::calls::ThreadOwners;
use crate::mcp::distributed::metrics::{self, Metrics};
use crate::mcp::distributed::{Cluster, DistributedOptions};
use crate::mcp::http::guard::{
    AccessPolicy, POST_STREAM_HEADER, PostReply, Refusal, SESSION_HEADER, VERSION_HEADER, accepts,
    is_json_content, post_reply,
};
use crate::mcp::http::sessions::{HttpSession, SessionTable, new_session_id};
use crate::mcp::http::streams::StreamHub;
use crate::mcp::protocol::{SUPPORTED_VERSIONS, is_supported_version};
use crate::mcp::session::{McpOptions, McpSession};
use crate::transport::{DecodeError, IncomingMessage, decode_line};
use responses::{json_response, rpc_status, sse_response, sse_single};
use tandem_core::config::Config;
use tandem_core::principal::Principal;
use tandem_core::store::Store;

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Address to listen on.
    pub bind: SocketAddr,
    /// Host/Origin/token checks.
    pub access: AccessPolicy,
    /// Connections at once and the header-read timeout.
    pub limits: ConnectionLimits,
    /// MCP sessions this node holds at most; `initialize` beyond is refused with 503.
    pub max_sessions: usize,
    /// Idle time after which a session is evicted.
    pub session_ttl: Duration,
    /// Largest accepted POST body.
    pub max_body_bytes: usize,
    /// Interval of SSE keep-alive comments.
    pub keep_alive: Duration,
    /// Events kept per stream for `Last-Event-ID` replay.
    pub replay_buffer: usize,
    /// `retry` sent with the priming event of POST streams (2025-11-25).
    pub sse_retry: Duration,
}

struct HttpState {
    /// Shared by every session's engine.
    config: Arc<Config>,
    store: Arc<Store>,
    options: McpOptions,
    http: HttpOptions,
    sessions: SessionTable,
    owners: Arc<ThreadOwners>,
    tasks: TaskTracker,
    bind_host: String,
    /// The session stores and the bus: Redis with `--redis`, else this process's memory.
    cluster: Arc<Cluster>,
    metrics: Arc<Metrics>,
    /// 2026-07-28 requests running at once, each in a session of its own (`modern.rs`);
    /// `--max-sessions` of them at most.
    modern_requests: Arc<tokio::sync::Semaphore>,
    /// Numbers the sessions of 2026 requests (their ids in logs and thread ownership).
    modern_sessions: std::sync::atomic::AtomicU64,
    /// The tool arguments that clients mirror in `Mcp-Param-*` headers, read from the tool
    /// list (fixed for the life of the server) on first use (`modern.rs`).
    param_headers: std::sync::OnceLock<modern::ParamHeaders>,
    /// 2026 requests forwarded to the node owning their thread, by tag (`modern.rs`).
    modern_forwards: std::sync::Mutex<std::collections::HashMap<String, modern::ForwardedHere>>,
    /// The sessions of the 2026 requests running here, by number, whose loaded threads'
    /// leases are renewed like those of session-era sessions (`modern.rs`).
    modern_live: std::sync::Mutex<
        std::collections::HashMap<u64, std::sync::Weak<crate::mcp::session::McpSession>>,
    >,
}

/// Serves MCP over streamable HTTP until a signal arrives; the shutdown it begins
/// ([`crate::shutdown`]) ends the process within the grace period.
pub async fn serve_http(
    config: Config,
    options: McpOptions,
    http: HttpOptions,
    distributed: Option<DistributedOptions>,
) -> anyhow::Result<()> {
    let metrics = Arc::new(Metrics::new());
    // Redis unreachable at startup stops the process before it serves anything.
    let (cluster, forwards) = match distributed {
        Some(options) => Cluster::connect(options, metrics.clone()).await?,
        None => Cluster::local(http.session_ttl, http.replay_buffer, metrics.clone()),
    };
    // With Redis, every node answers `tasks/get` for every task.
    if let Some(mirror) = &cluster.task_mirror {
        options
            .tasks
            .set_mirror(mirror.clone(), cluster.node_id().to_string());
    }
    // With Redis, a request state used on one node is refused on every other.
    if let Some(used_states) = &cluster.used_states {
        options.request_states.set_shared(used_states.clone());
    }
    let mut store = Store::open(&config.home)?;
    // With Redis, every rollout line this node writes is mirrored, so another node can
    // rebuild the thread; a single node mirrors nothing.
    if let Some(mirror) = cluster.threads.start_mirror() {
        store = store.with_rollout_mirror(mirror);
    }
    let store = Arc::new(store);
    tandem_core::redact::register_known_secrets(store.redactor(), &config, &options.account);
    if let Authentication::Tokens(table) = &http.access.authentication {
        for token in table.tokens() {
            store.redactor().add_secret(&token);
        }
    }
    let listener = tokio::net::TcpListener::bind(http.bind).await?;
    let address = listener.local_addr()?;
    report_listening(address, &http.access.authentication);
    tracing::info!(%address, "mcp-server listening on http://{address}/mcp");
    if let Authentication::Tokens(table) = &http.access.authentication {
        tokio::spawn(auth::watch_token_file(table.clone()));
    }
    let max_sessions = http.max_sessions;
    let state = Arc::new(HttpState {
        config: Arc::new(config),
        store,
        options,
        bind_host: http.bind.ip().to_string(),
        http,
        sessions: SessionTable::default(),
        owners: Arc::new(ThreadOwners::default()),
        tasks: TaskTracker::new(),
        cluster,
        metrics,
        modern_requests: Arc::new(tokio::sync::Semaphore::new(max_sessions.max(1))),
        modern_sessions: std::sync::atomic::AtomicU64::new(0),
        param_headers: std::sync::OnceLock::new(),
        modern_forwards: std::sync::Mutex::default(),
        modern_live: std::sync::Mutex::default(),
    });
    tokio::spawn(cluster::handle_forwards(state.clone(), forwards));
    tokio::spawn(cluster::renew_leases(state.clone(), state.cluster.clone()));
    let router = Router::new()
        .route(
            "/mcp",
            post(post_mcp)
                .get(get_mcp)
                .delete(delete_mcp)
                .options(cors::preflight),
        )
        .route("/metrics", axum::routing::get(get_metrics))
        .layer(axum::middleware::from_fn(cors::cors_headers))
        .with_state(state.clone());
    let sweeper = tokio::spawn(sweep_idle_sessions(state.clone()));
    let shutdown = crate::shutdown::Shutdown::start();
    let closing = state.clone();
    let limits = state.http.limits;
    let guard = shutdown.guard();
    http_accept::serve(
        listener,
        router,
        |_| (),
        limits,
        state.metrics.clone(),
        async move {
            guard.begun().await;
            tracing::info!("closing sessions");
            // Closing the sessions ends their SSE streams, so the connections can drain.
            for session in closing.sessions.drain() {
                session.close().await;
            }
            closing.cluster.streams.end_all();
            drop(guard);
        },
    )
    .await;
    sweeper.abort();
    state.tasks.close();
    // Session closings still running past `DRAIN` are left to the deadline.
    let _ = tokio::time::timeout(crate::shutdown::DRAIN, state.tasks.wait()).await;
    shutdown.complete().await;
    Ok(())
}

#[allow(
    clippy::print_stderr,
    reason = "the listening address is reported on stderr for whoever started the server"
)]
fn report_listening(address: SocketAddr, authentication: &Authentication) {
    eprintln!("tandem mcp-server listening on http://{address}/mcp");
    // `--auth none` is refused on other addresses before the server starts.
    if let Authentication::Disabled = authentication {
        eprintln!(
            "tandem mcp-server: warning: --auth none: every account on this machine can connect to http://{address}/mcp and run commands through the agent as you"
        );
    }
}

/// Reports on stderr, once an expired session is closed (its turns interrupted and recorded),
/// `tandem mcp-server: session expired: <id>`, for whoever started the server.
#[allow(
    clippy::print_stderr,
    reason = "session expiry is reported on stderr for whoever started the server"
)]
fn report_expired(session_id: &str) {
    eprintln!("tandem mcp-server: session expired: {session_id}");
}

async fn sweep_idle_sessions(state: Arc<HttpState>) {
    let ttl = state.http.session_ttl;
    let period = (ttl / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
    loop {
        tokio::time::sleep(period).await;
        for (session_id, session) in state.sessions.take_idle(ttl) {
            tracing::info!(%session_id, "session idle for longer than the TTL; evicting it");
            state.tasks.spawn(async move {
                session.close().await;
                report_expired(&session_id);
            });
        }
        cluster::refresh_connected(&state, &state.cluster, period).await;
    }
}

impl HttpState {
    /// Host, Origin and the bearer token; the principal the request acts for.
    fn check_access(&self, headers: &HeaderMap) -> Result<Principal, Box<Response>> {
        if tracing::enabled!(tracing::Level::DEBUG) {
            // The token stays out of the log, whatever the level.
            let mut logged = headers.clone();
            logged.remove(header::AUTHORIZATION);
            tracing::debug!(headers = ?logged, "http request");
        }
        self.refusal(self.http.access.check(headers, &self.bind_host))
    }

    fn refusal<T>(&self, checked: Result<T, Refusal>) -> Result<T, Box<Response>> {
        checked.map_err(|refusal| Box::new(responses::refused(refusal)))
    }

    /// The session named by the request, with the protocol version header checked; a
    /// session of another principal than `principal` is answered as an unknown one (404).
    async fn session(
        self: &Arc<Self>,
        headers: &HeaderMap,
        principal: &Principal,
        id: Option<&RequestId>,
    ) -> Result<Arc<HttpSession>, Box<Response>> {
        match self.session_here(headers, principal, id, true).await? {
            Some(session) => Ok(session),
            None => Err(Box::new(gone(id))),
        }
    }

    /// Like [`HttpState::session`], but a live session this node does not hold is not
    /// rebuilt here (`Ok(None)`): notifications and responses need no copy of it, and an idle
    /// session then costs memory on one node only.
    async fn session_if_held(
        self: &Arc<Self>,
        headers: &HeaderMap,
        principal: &Principal,
    ) -> Result<Option<Arc<HttpSession>>, Box<Response>> {
        self.session_here(headers, principal, None, false).await
    }

    async fn session_here(
        self: &Arc<Self>,
        headers: &HeaderMap,
        principal: &Principal,
        id: Option<&RequestId>,
        rebuild: bool,
    ) -> Result<Option<Arc<HttpSession>>, Box<Response>> {
        let Some(session_id) = headers
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok())
        else {
            return Err(Box::new(rpc_status(
                StatusCode::BAD_REQUEST,
                id,
                INVALID_REQUEST,
                "missing Mcp-Session-Id header; send initialize first",
            )));
        };
        let local = self
            .sessions
            .get(session_id)
            .filter(|local| local.session.principal == *principal);
        let ttl = self.cluster.session_ttl;
        let resolved = cluster::resolve(
            self,
            &self.cluster,
            session_id,
            local,
            rebuild,
            Some(principal),
            ttl,
        )
        .await
        .map_err(|error| cluster::unavailable(id, &error))?;
        let session = match resolved {
            cluster::Resolved::Here(session) => Some(session),
            cluster::Resolved::Elsewhere => None,
            cluster::Resolved::Gone => return Err(Box::new(gone(id))),
        };
        if let Some(version) = headers.get(VERSION_HEADER) {
            let version = version.to_str().unwrap_or_default();
            if !is_supported_version(version) {
                return Err(Box::new(rpc_status(
                    StatusCode::BAD_REQUEST,
                    id,
                    INVALID_REQUEST,
                    &format!(
                        "unsupported MCP-Protocol-Version `{version}`; supported: {}",
                        SUPPORTED_VERSIONS.join(", ")
                    ),
                )));
            }
        }
        if let Some(session) = &session {
            session.touch();
        }
        Ok(session)
    }
}

/// The 404 of a session id nobody knows.
fn gone(id: Option<&RequestId>) -> Response {
    rpc_status(
        StatusCode::NOT_FOUND,
        id,
        INVALID_REQUEST,
        "unknown, expired or deleted session; initialize a new one",
    )
}

async fn post_mcp(State(state): State<Arc<HttpState>>, headers: HeaderMap, body: Body) -> Response {
    let principal = match state.check_access(&headers) {
        Ok(principal) => principal,
        Err(response) => return *response,
    };
    if !is_json_content(&headers) {
        return rpc_status(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            INVALID_REQUEST,
            "Content-Type must be application/json",
        );
    }
    let Some(reply) = post_reply(&headers) else {
        return rpc_status(
            StatusCode::NOT_ACCEPTABLE,
            None,
            INVALID_REQUEST,
            &format!(
                "Accept must list application/json and text/event-stream (and include the one {POST_STREAM_HEADER} asks for)"
            ),
        );
    };
    let bytes = match axum::body::to_bytes(body, state.http.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return rpc_status(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                INVALID_REQUEST,
                &format!(
                    "request body larger than {} bytes",
                    state.http.max_body_bytes
                ),
            );
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let message = match decode_line(&text) {
        Ok(message) => message,
        Err(DecodeError::NotJson(error)) => {
            return rpc_status(
                StatusCode::BAD_REQUEST,
                None,
                PARSE_ERROR,
                &format!("parse error: {error}"),
            );
        }
        Err(DecodeError::NotAMessage(_)) if text.trim_start().starts_with('[') => {
            return batch(&state, &headers, &principal, &text, reply).await;
        }
        Err(DecodeError::NotAMessage(reason)) => {
            let message = format!("invalid request: {reason}");
            return rpc_status(StatusCode::BAD_REQUEST, None, INVALID_REQUEST, &message);
        }
    };
    match message {
        IncomingMessage::Request { id, method, value } if modern::applies(&headers, &value) => {
            modern::post(&state, &headers, principal, id, method, value, reply).await
        }
        IncomingMessage::Request { id, method, value } if method == "initialize" => {
            if headers.contains_key(SESSION_HEADER) {
                return rpc_status(
                    StatusCode::BAD_REQUEST,
                    Some(&id),
                    INVALID_REQUEST,
                    "initialize must not carry Mcp-Session-Id: that session is already initialized",
                );
            }
            initialize(&state, principal, id, value, reply).await
        }
        IncomingMessage::Request { id, method, value } => {
            let session = match state.session(&headers, &principal, Some(&id)).await {
                Ok(session) => session,
                Err(response)
                    if method == "server/discover" && !headers.contains_key(SESSION_HEADER) =>
                {
                    // Newer clients probe with `server/discover` before initializing; any
                    // JSON-RPC error makes them fall back.
                    drop(response);
                    return rpc_status(
                        StatusCode::BAD_REQUEST,
                        Some(&id),
                        METHOD_NOT_FOUND,
                        "method not found: server/discover",
                    );
                }
                Err(response) => return *response,
            };
            run_request(&state, session, id, method, value, reply).await
        }
        IncomingMessage::Notification { method } => {
            let held = match state.session_if_held(&headers, &principal).await {
                Ok(held) => held,
                Err(response) => return *response,
            };
            let value: Value = serde_json::from_str(&text).unwrap_or_default();
            if method == "notifications/cancelled" {
                let session_id = session_id_of(&headers);
                let held_here = held.as_deref();
                match cluster::forward_cancel(&state.cluster, session_id, held_here, &value).await {
                    Ok(true) => return StatusCode::ACCEPTED.into_response(),
                    Ok(false) => {}
                    Err(error) => return *cluster::unavailable(None, &error),
                }
            }
            // A session this node does not hold runs nothing here to notify.
            if let Some(session) = held {
                session.session.handle_notification(&method, &value);
            }
            StatusCode::ACCEPTED.into_response()
        }
        IncomingMessage::Response { id, outcome } => {
            let held = match state.session_if_held(&headers, &principal).await {
                Ok(held) => held,
                Err(response) => return *response,
            };
            let session_id = session_id_of(&headers);
            match cluster::forward_response(&state.cluster, session_id, &id, &outcome).await {
                Ok(true) => return StatusCode::ACCEPTED.into_response(),
                Ok(false) => {}
                Err(error) => return *cluster::unavailable(None, &error),
            }
            match held {
                Some(session) => session.session.handle_response(id, outcome),
                None => tracing::debug!(%id, "answer to a request no node of this session sent"),
            }
            StatusCode::ACCEPTED.into_response()
        }
    }
}

/// The `Mcp-Session-Id` of a request that passed [`HttpState::session_if_held`].
fn session_id_of(headers: &HeaderMap) -> &str {
    headers
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
}

async fn initialize(
    state: &Arc<HttpState>,
    principal: Principal,
    id: RequestId,
    value: Value,
    reply: PostReply,
) -> Response {
    if state.sessions.len() >= state.http.max_sessions {
        return too_many_sessions(state, &id);
    }
    let session_id = match new_session_id() {
        Ok(session_id) => session_id,
        Err(error) => {
            tracing::error!(%error, "cannot draw a session id");
            return rpc_status(
                StatusCode::INTERNAL_SERVER_ERROR,
                Some(&id),
                INTERNAL_ERROR,
                "cannot create a session id",
            );
        }
    };
    let hub = Arc::new(StreamHub::new(state.http.replay_buffer));
    let session = McpSession::new(
        session_id.clone(),
        principal,
        state.config.clone(),
        state.store.clone(),
        cluster::outbound(state, &hub, &session_id),
        state.options.clone(),
        state.owners.clone(),
    );
    cluster::prepare(state, &session);
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    let answer = hub.open_json_route(id.clone());
    session
        .clone()
        .handle_request(id.clone(), "initialize".to_string(), value)
        .await;
    let Ok(message) = answer.await else {
        return rpc_status(
            StatusCode::INTERNAL_SERVER_ERROR,
            None,
            INTERNAL_ERROR,
            "initialize produced no answer",
        );
    };
    if message.get("error").is_some() {
        return json_response(StatusCode::BAD_REQUEST, &message);
    }
    if let Err(error) =
        cluster::publish_session(&state.cluster, &session_id, &session, params).await
    {
        session.close().await;
        return *cluster::unavailable(None, &error);
    }
    let session = Arc::new(HttpSession::new(session, hub));
    // Concurrent `initialize`s may all have passed the first check: this one is exact.
    if !state
        .sessions
        .insert_within(session_id.clone(), session.clone(), state.http.max_sessions)
    {
        let _ = state.cluster.sessions.delete(&session_id).await;
        session.close().await;
        return too_many_sessions(state, &id);
    }
    tracing::info!(%session_id, principal = %session.session.principal, "session created");
    let mut response = match reply {
        PostReply::Json => json_response(StatusCode::OK, &message),
        PostReply::Sse => sse_single(&message),
    };
    if let Ok(value) = HeaderValue::from_str(&session_id) {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    response
}

/// The 503 of an `initialize` over `--max-sessions`.
fn too_many_sessions(state: &HttpState, id: &RequestId) -> Response {
    state.metrics.sessions_refused.inc();
    tracing::warn!(
        max_sessions = state.http.max_sessions,
        "session limit reached; initialize refused"
    );
    rpc_status(
        StatusCode::SERVICE_UNAVAILABLE,
        Some(id),
        OVERLOADED,
        &format!(
            "this server holds its maximum of {} MCP sessions (--max-sessions); try again once sessions end",
            state.http.max_sessions
        ),
    )
}

/// A JSON-RPC batch (protocol 2025-03-26 only): answered with one array, as JSON or as one
/// SSE event; its requests' events and elicitations go to the GET stream.
async fn batch(
    state: &Arc<HttpState>,
    headers: &HeaderMap,
    principal: &Principal,
    text: &str,
    reply: PostReply,
) -> Response {
    let session = match state.session(headers, principal, None).await {
        Ok(session) => session,
        Err(response) => return *response,
    };
    if session.session.protocol_version() != Some("2025-03-26") {
        return rpc_status(
            StatusCode::BAD_REQUEST,
            None,
            INVALID_REQUEST,
            "batches are only allowed with protocol version 2025-03-26; send one message per POST",
        );
    }
    let items = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let _guard = session.hub.connection_guard();
    let answer = session.session.clone().handle_batch(items);
    match state.tasks.spawn(answer).await {
        Ok(Some(message)) => match reply {
            PostReply::Json => json_response(StatusCode::OK, &message),
            PostReply::Sse => sse_single(&message),
        },
        Ok(None) => StatusCode::ACCEPTED.into_response(),
        Err(error) => {
            tracing::error!(%error, "batch task failed");
            rpc_status(
                StatusCode::INTERNAL_SERVER_ERROR,
                None,
                INTERNAL_ERROR,
                "batch failed",
            )
        }
    }
}

async fn run_request(
    state: &Arc<HttpState>,
    session: Arc<HttpSession>,
    id: RequestId,
    method: String,
    value: Value,
    reply: PostReply,
) -> Response {
    if session.hub.has_route(&id) {
        return rpc_status(
            StatusCode::BAD_REQUEST,
            Some(&id),
            INVALID_REQUEST,
            &format!("request id {id} is already in use"),
        );
    }
    let post_stream = matches!(reply, PostReply::Sse);
    let (handler, stream) = match cluster::request_task(
        state,
        &session,
        id.clone(),
        method,
        value,
        post_stream,
    )
    .await
    {
        Ok(task) => task,
        Err(response) => return *response,
    };
    match reply {
        PostReply::Sse => {
            let priming = session
                .session
                .protocol_version()
                .is_some_and(|version| version >= "2025-11-25");
            let attached = session.hub.open_post_stream_as(id, priming, stream);
            state.tasks.spawn(handler);
            let retry = priming.then_some(state.http.sse_retry);
            sse_response(attached, state.http.keep_alive, retry, &state.metrics)
        }
        PostReply::Json => {
            let answer = session.hub.open_json_route(id);
            let _guard = session.hub.connection_guard();
            state.tasks.spawn(handler);
            match answer.await {
                Ok(message) => json_response(StatusCode::OK, &message),
                // Cancelled by the client: no JSON-RPC response exists.
                Err(_) => StatusCode::ACCEPTED.into_response(),
            }
        }
    }
}

async fn get_mcp(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    let principal = match state.check_access(&headers) {
        Ok(principal) => principal,
        Err(response) => return *response,
    };
    if !accepts(&headers, "text/event-stream") {
        return rpc_status(
            StatusCode::NOT_ACCEPTABLE,
            None,
            INVALID_REQUEST,
            "GET needs Accept: text/event-stream",
        );
    }
    let session = match state.session(&headers, &principal, None).await {
        Ok(session) => session,
        Err(response) => return *response,
    };
    let last_event_id = headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok());
    cluster::get_stream(&state, &state.cluster, &session, last_event_id).await
}

async fn delete_mcp(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    let principal = match state.check_access(&headers) {
        Ok(principal) => principal,
        Err(response) => return *response,
    };
    let Some(session_id) = headers
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
    else {
        return rpc_status(
            StatusCode::BAD_REQUEST,
            None,
            INVALID_REQUEST,
            "missing Mcp-Session-Id header",
        );
    };
    cluster::delete_everywhere(&state, &state.cluster, session_id, &principal).await
}

/// `GET /metrics`: this node's metrics in the Prometheus text format.
async fn get_metrics(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    if let Err(response) = state.check_access(&headers) {
        return *response;
    }
    state.metrics.sessions_open.set(state.sessions.len() as i64);
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, metrics::CONTENT_TYPE)],
        state.metrics.render(),
    )
        .into_response()
}
