//! The HTTP transport's side of the session stores: rebuilding a session this node does not
//! hold, keeping the shared metadata alive, the GET stream from the event store, forwarding
//! answers and cancellations to the node that waits for them, and DELETE everywhere. A server
//! without `--redis` is a [`Cluster`] of one node with in-memory stores, so every request
//! takes these paths; on one node nothing is ever elsewhere.

use std::sync::Arc;

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::jsonrpc::error_codes::{INTERNAL_ERROR, INVALID_REQUEST};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;
use tracing::Instrument;

use crate::mcp::distributed::metrics::InFlight;
use crate::mcp::distributed::outbound::ClusterOutbound;
use crate::mcp::distributed::store::{SessionMeta, now_ms};
use crate::mcp::distributed::threads::Lease;
use crate::mcp::distributed::{BoxFuture, Cluster, Forward, StoreError, follow, node_of_request};
use crate::mcp::http::sessions::HttpSession;
use crate::mcp::http::streams::{Attached, ResumeError, STANDALONE, StreamHub, parse_event_id};
use crate::mcp::http::{HttpState, rpc_status};
use crate::mcp::output::Outbound;
use crate::mcp::output::Route;
use crate::mcp::protocol::{error_response, log_level_rank};
use crate::mcp::session::McpSession;
use crate::mcp::tools::CODEX_REPLY_TOOL;
use crate::rpc_error;
use tandem_core::engine::normalize_thread_id;
use tandem_core::principal::Principal;

/// 503 with a JSON-RPC error: the shared store cannot be reached.
pub(super) fn unavailable(id: Option<&RequestId>, error: &StoreError) -> Box<Response> {
    Box::new(rpc_status(
        StatusCode::SERVICE_UNAVAILABLE,
        id,
        INTERNAL_ERROR,
        &format!("shared session store unavailable, try again: {error}"),
    ))
}

/// The outbound of a new session of this server.
pub(super) fn outbound(
    state: &HttpState,
    hub: &Arc<StreamHub>,
    session_id: &str,
) -> Arc<dyn Outbound> {
    Arc::new(ClusterOutbound {
        hub: hub.clone(),
        cluster: state.cluster.clone(),
        session_id: session_id.to_string(),
    })
}

/// Names a new session's server→client requests after this node, when other nodes may
/// receive their answers.
pub(super) fn prepare(state: &HttpState, session: &McpSession) {
    if let Some(prefix) = state.cluster.request_id_prefix() {
        session.set_request_id_prefix(prefix);
    }
}

/// Stores a session that `initialize` with `params` just created here.
pub(super) async fn publish_session(
    cluster: &Cluster,
    session_id: &str,
    session: &McpSession,
    params: Value,
) -> Result<(), StoreError> {
    let meta = SessionMeta {
        protocol_version: session.protocol_version().unwrap_or_default().to_string(),
        initialize_params: params,
        log_level: None,
        last_access_ms: now_ms(),
        created_by: cluster.node_id().to_string(),
        principal: session.principal.name().to_string(),
    };
    let stored = cluster
        .sessions
        .set(session_id, &meta, cluster.session_ttl)
        .await;
    cluster.counted(stored)
}

/// What [`resolve`] found.
pub(super) enum Resolved {
    /// The session, held (or now rebuilt) on this node.
    Here(Arc<HttpSession>),
    /// Alive, held by other nodes only, and not rebuilt here (`rebuild` was false).
    Elsewhere,
    /// Unknown, expired or deleted, or another principal's.
    Gone,
}

/// The session `session_id` as the shared store knows it: refreshed there (for `ttl` from
/// now), rebuilt here if
/// this node does not hold it (only with `rebuild`), dropped here if it ended elsewhere.
/// With `principal` (a client's request), a session another principal created is
/// [`Resolved::Gone`]; without (a request another node forwarded), the stored principal is
/// trusted.
pub(super) async fn resolve(
    state: &Arc<HttpState>,
    cluster: &Arc<Cluster>,
    session_id: &str,
    local: Option<Arc<HttpSession>>,
    rebuild: bool,
    principal: Option<&Principal>,
    ttl: std::time::Duration,
) -> Result<Resolved, StoreError> {
    let touched = cluster.counted(cluster.sessions.touch(session_id, ttl).await)?;
    let Some(meta) = touched else {
        if let Some(session) = state.sessions.remove(session_id) {
            tracing::info!(%session_id, "session ended on another node or expired; dropping it here");
            state.tasks.spawn(async move { session.close().await });
        }
        return Ok(Resolved::Gone);
    };
    if principal.is_some_and(|principal| principal.name() != meta.principal) {
        return Ok(Resolved::Gone);
    }
    if let Some(local) = local {
        // `logging/setLevel` may have reached another node since.
        if let Some(level) = &meta.log_level {
            local.session.apply_log_level(level);
        }
        return Ok(Resolved::Here(local));
    }
    if !rebuild {
        return Ok(Resolved::Elsewhere);
    }
    let hub = Arc::new(StreamHub::new(state.http.replay_buffer));
    let session = McpSession::new(
        session_id.to_string(),
        Principal::named(&meta.principal),
        state.config.clone(),
        state.store.clone(),
        outbound(state, &hub, session_id),
        state.options.clone(),
        state.owners.clone(),
    );
    prepare(state, &session);
    if let Err(error) = session.restore(&meta.initialize_params) {
        tracing::warn!(%session_id, message = %error.message, "stored session does not restore");
        return Ok(Resolved::Gone);
    }
    if let Some(level) = &meta.log_level {
        session.apply_log_level(level);
    }
    // Another request may have rebuilt it meanwhile: keep the first.
    if let Some(existing) = state.sessions.get(session_id) {
        return Ok(Resolved::Here(existing));
    }
    let session = Arc::new(HttpSession::new(session, hub));
    state
        .sessions
        .insert(session_id.to_string(), session.clone());
    tracing::info!(%session_id, created_by = %meta.created_by, "session rebuilt from the shared store");
    Ok(Resolved::Here(session))
}

/// GET: the standalone stream from the event store, or, with the `Last-Event-ID` of a POST
/// stream, that stream resumed from this node's hub (or relayed from the node that served
/// the POST).
pub(super) async fn get_stream(
    state: &Arc<HttpState>,
    cluster: &Arc<Cluster>,
    session: &HttpSession,
    last_event_id: Option<&str>,
) -> Response {
    if let Some(last_event_id) = last_event_id
        && let Some((stream, _)) = parse_event_id(last_event_id)
        && stream != STANDALONE
    {
        if !session.hub.has_stream(stream) {
            return super::cluster_resume::resume_elsewhere(
                state,
                cluster,
                session,
                stream,
                last_event_id,
            )
            .await;
        }
        // This node served that POST: resume it from its hub.
        return match session.hub.resume(last_event_id) {
            Ok(attached) => {
                super::sse_response(attached, state.http.keep_alive, None, &state.metrics)
            }
            Err(ResumeError::Busy) => rpc_status(
                StatusCode::CONFLICT,
                None,
                INVALID_REQUEST,
                "this session already has an open GET stream",
            ),
            Err(ResumeError::Malformed | ResumeError::UnknownStream) => {
                resume_refusal(Some(last_event_id))
            }
        };
    }
    let session_id = session.session.shared.session_id.clone();
    match attach_standalone(state, cluster, &session_id, session, last_event_id).await {
        Ok(attached) => super::sse_response(attached, state.http.keep_alive, None, &state.metrics),
        Err(response) => *response,
    }
}

/// The GET stream of `session_id` from the shared event store; `Err` is the response to
/// send.
async fn attach_standalone(
    state: &Arc<HttpState>,
    cluster: &Arc<Cluster>,
    session_id: &str,
    session: &HttpSession,
    last_event_id: Option<&str>,
) -> Result<Attached, Box<Response>> {
    let after = match last_event_id.map(parse_event_id) {
        None => None,
        Some(Some((STANDALONE, seq))) => Some(seq),
        Some(_) => return Err(Box::new(resume_refusal(last_event_id))),
    };
    let capacity = state.http.replay_buffer * 16;
    match follow::attach(cluster, session_id, after, capacity).await {
        Ok(Some(events)) => Ok(Attached {
            events,
            guard: session.hub.connection_guard(),
        }),
        // One GET stream per session on the whole cluster.
        Ok(None) => Err(Box::new(rpc_status(
            StatusCode::CONFLICT,
            None,
            INVALID_REQUEST,
            "this session already has an open GET stream",
        ))),
        Err(error) => Err(unavailable(None, &error)),
    }
}

/// The task that answers client request `id`: run on this node, or (a `codex-reply` on a
/// thread another live node owns) forwarded to that node. The request is recorded as
/// running on the node that runs it, for cancellations landing elsewhere, and its POST
/// stream (with `post_stream`) gets its session-wide number.
pub(super) async fn request_task(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    id: RequestId,
    method: String,
    value: Value,
    post_stream: bool,
) -> Result<(BoxFuture<'static, ()>, Option<u64>), Box<Response>> {
    let in_flight = InFlight::new(&state.metrics);
    let cluster = state.cluster.clone();
    let session_id = session.session.shared.session_id.clone();
    if method == "logging/setLevel" {
        save_log_level(&cluster, &session_id, &value)
            .await
            .map_err(|error| unavailable(Some(&id), &error))?;
    }
    let owner = owner_elsewhere(state, &cluster, &method, &value)
        .await
        .map_err(|error| unavailable(Some(&id), &error))?;
    let node = owner.as_deref().unwrap_or(cluster.node_id());
    let stream = cluster
        .register_call(&session_id, &id, node, post_stream)
        .await
        .map_err(|error| unavailable(Some(&id), &error))?;
    if let Some(node) = owner {
        // The owner runs it, records its end and streams its messages back.
        let forward = forward_call(cluster, session.clone(), node, id, method, value);
        return Ok((Box::pin(forward), stream));
    }
    let handler = session
        .session
        .clone()
        .handle_request(id.clone(), method, value);
    let task = Box::pin(async move {
        handler.await;
        drop(in_flight);
        cluster.unregister_call(&session_id, &id).await;
    });
    Ok((task, stream))
}

/// Puts the level of a valid `logging/setLevel` request in the session's shared metadata
/// before the request is answered, so that every node honours it from the next request on.
async fn save_log_level(
    cluster: &Cluster,
    session_id: &str,
    request: &Value,
) -> Result<(), StoreError> {
    let Some(level) = request
        .pointer("/params/level")
        .and_then(Value::as_str)
        .filter(|level| log_level_rank(level).is_some())
    else {
        // The request itself reports the bad level.
        return Ok(());
    };
    let Some(mut meta) = cluster.counted(cluster.sessions.get(session_id).await)? else {
        return Ok(());
    };
    meta.log_level = Some(level.to_string());
    meta.last_access_ms = now_ms();
    let stored = cluster
        .sessions
        .set(session_id, &meta, cluster.session_ttl)
        .await;
    cluster.counted(stored)
}

/// Where request `method`/`value` runs: `Some(node)` for a `codex-reply` on a thread whose
/// live owner is another node; `None` here (taking the thread over, with its rollout rebuilt
/// from Redis, when its owner is gone).
pub(super) async fn owner_elsewhere(
    state: &Arc<HttpState>,
    cluster: &Arc<Cluster>,
    method: &str,
    value: &Value,
) -> Result<Option<String>, StoreError> {
    if method != "tools/call"
        || value.pointer("/params/name").and_then(Value::as_str) != Some(CODEX_REPLY_TOOL)
    {
        return Ok(None);
    }
    let Some(thread_id) = value
        .pointer("/params/arguments/threadId")
        .and_then(Value::as_str)
        .and_then(|thread_id| normalize_thread_id(thread_id).ok())
    else {
        // The call itself reports the bad argument.
        return Ok(None);
    };
    match cluster.take_lease(&thread_id).await? {
        Lease::Renewed => Ok(None),
        Lease::Taken => {
            if !loaded_here(state, &thread_id)
                && cluster.restore_rollout(&state.store, &thread_id).await?
            {
                tracing::info!(%thread_id, "took over a thread whose owner is gone; rollout rebuilt from Redis");
            }
            Ok(None)
        }
        Lease::Elsewhere => cluster.lease_holder(&thread_id).await,
    }
}

fn loaded_here(state: &HttpState, thread_id: &str) -> bool {
    let in_sessions =
        state.sessions.snapshot().iter().any(|(_, session)| {
            tandem_core::sync::lock(&session.session.loaded).contains(thread_id)
        });
    in_sessions
        || tandem_core::sync::lock(&state.modern_live)
            .values()
            .filter_map(std::sync::Weak::upgrade)
            .any(|session| tandem_core::sync::lock(&session.loaded).contains(thread_id))
}

/// Sends request `id` to `node`, which runs it and streams its messages back here.
pub(super) async fn forward_call(
    cluster: Arc<Cluster>,
    session: Arc<HttpSession>,
    node: String,
    id: RequestId,
    method: String,
    message: Value,
) {
    let session_id = session.session.shared.session_id.clone();
    let forward = Forward::Call {
        session: session_id.clone(),
        id: id.clone(),
        method,
        message,
        reply_node: cluster.node_id().to_string(),
    };
    tracing::info!(%session_id, %id, %node, "request forwarded to the thread's owner");
    if let Err(error) = cluster.forward(Some(&node), &forward).await {
        let reply = error_response(
            Some(&id),
            &rpc_error::with_code(
                INTERNAL_ERROR,
                format!("cannot reach the thread's node: {error}"),
            ),
        );
        session
            .session
            .shared
            .outbound
            .send(Route::Request(id), reply)
            .await;
    }
}

/// Renews the leases of the threads loaded here for as long as the server runs.
pub(super) async fn renew_leases(state: Arc<HttpState>, cluster: Arc<Cluster>) {
    let period = (cluster.lease_ttl / 3).max(std::time::Duration::from_millis(50));
    loop {
        tokio::time::sleep(period).await;
        let mut threads = Vec::new();
        for (_, session) in state.sessions.snapshot() {
            threads.extend(
                tandem_core::sync::lock(&session.session.loaded)
                    .iter()
                    .cloned(),
            );
        }
        // The sessions of 2026 requests (calls and tasks) running here.
        let modern: Vec<Arc<McpSession>> = tandem_core::sync::lock(&state.modern_live)
            .values()
            .filter_map(std::sync::Weak::upgrade)
            .collect();
        for session in modern {
            threads.extend(tandem_core::sync::lock(&session.loaded).iter().cloned());
        }
        let mut held = 0;
        for thread_id in threads {
            match cluster.take_lease(&thread_id).await {
                Ok(Lease::Taken | Lease::Renewed) => held += 1,
                Ok(Lease::Elsewhere) => {
                    tracing::warn!(%thread_id, "a loaded thread's lease is held by another node")
                }
                Err(_) => {}
            }
        }
        cluster.metrics.leases_held.set(held);
    }
}

/// Sends the client's answer to a server→client request of another node there; `false`
/// when the request is this node's.
pub(super) async fn forward_response(
    cluster: &Cluster,
    session_id: &str,
    id: &RequestId,
    outcome: &Result<Value, Value>,
) -> Result<bool, StoreError> {
    let Some(node) = node_of_request(id) else {
        return Ok(false);
    };
    if node == cluster.node_id() {
        return Ok(false);
    }
    let forward = Forward::Response {
        session: session_id.to_string(),
        id: id.clone(),
        outcome: outcome.clone(),
    };
    cluster.forward(Some(node), &forward).await?;
    tracing::info!(%session_id, %id, %node, "answer forwarded to the node that asked");
    Ok(true)
}

/// Sends `notifications/cancelled` to the node running the request it names, when that is
/// not this node; `false` when it is for this node.
pub(super) async fn forward_cancel(
    cluster: &Cluster,
    session_id: &str,
    session: Option<&HttpSession>,
    notification: &Value,
) -> Result<bool, StoreError> {
    let Some(request_id) = notification
        .pointer("/params/requestId")
        .cloned()
        .and_then(|id| serde_json::from_value::<RequestId>(id).ok())
    else {
        return Ok(false);
    };
    if session.is_some_and(|session| session.session.is_running(&request_id)) {
        return Ok(false);
    }
    let Some(node) = cluster.call_node(session_id, &request_id).await? else {
        return Ok(false);
    };
    if node == cluster.node_id() {
        return Ok(false);
    }
    let forward = Forward::Cancel {
        session: session_id.to_string(),
        notification: notification.clone(),
    };
    cluster.forward(Some(&node), &forward).await?;
    tracing::info!(%session_id, %request_id, %node, "cancellation forwarded to the node running the call");
    Ok(true)
}

/// DELETE by `principal`: ends `session_id` everywhere; a session of another principal is
/// left alone and answered 404, as an unknown one.
pub(super) async fn delete_everywhere(
    state: &Arc<HttpState>,
    cluster: &Cluster,
    session_id: &str,
    principal: &Principal,
) -> Response {
    let stored = match cluster.counted(cluster.sessions.get(session_id).await) {
        Ok(stored) => stored,
        Err(error) => return *unavailable(None, &error),
    };
    let others = stored.is_some_and(|meta| meta.principal != principal.name())
        || state
            .sessions
            .get(session_id)
            .is_some_and(|local| local.session.principal != *principal);
    if others {
        return super::gone(None);
    }
    let local = state.sessions.remove(session_id);
    let deleted = delete(cluster, session_id).await;
    // Answer once the session is closed here: its turns are interrupted and its threads
    // released, so another session may continue them as soon as the client sees the 204.
    if let Some(session) = local {
        session.close().await;
    }
    match deleted {
        Ok(true) => {
            tracing::info!(%session_id, "session deleted by the client");
            StatusCode::NO_CONTENT.into_response()
        }
        Ok(false) => rpc_status(
            StatusCode::NOT_FOUND,
            None,
            INVALID_REQUEST,
            "unknown, expired or deleted session",
        ),
        Err(error) => *unavailable(None, &error),
    }
}

/// Deletes the shared metadata and events of `session_id`, then tells every node.
async fn delete(cluster: &Cluster, session_id: &str) -> Result<bool, StoreError> {
    let existed = cluster.counted(cluster.sessions.delete(session_id).await)?;
    if existed {
        let forward = Forward::Deleted {
            session: session_id.to_string(),
        };
        cluster.forward(None, &forward).await?;
    }
    Ok(existed)
}

/// Acts on messages from other nodes for as long as the server runs.
pub(super) async fn handle_forwards(state: Arc<HttpState>, mut forwards: mpsc::Receiver<Forward>) {
    while let Some(forward) = forwards.recv().await {
        match forward {
            Forward::Response {
                session,
                id,
                outcome,
            } => match state.sessions.get(&session) {
                Some(local) => local.session.handle_response(id, outcome),
                None => {
                    tracing::warn!(session_id = %session, %id, "forwarded answer for a session not held here")
                }
            },
            Forward::Cancel {
                session,
                notification,
            } => {
                if let Some(local) = state.sessions.get(&session) {
                    local
                        .session
                        .handle_notification("notifications/cancelled", &notification);
                }
            }
            Forward::Call {
                session,
                id,
                method,
                message,
                reply_node,
            } => {
                let span = tracing::info_span!(
                    "mcp_forwarded_request",
                    session_id = %session,
                    request_id = %id,
                    reply_node = %reply_node,
                );
                let state = state.clone();
                tokio::spawn(
                    run_forwarded(state, session, id, method, message, reply_node).instrument(span),
                );
            }
            Forward::Deliver {
                session,
                id,
                message,
            } => {
                let Some(local) = state.sessions.get(&session) else {
                    continue;
                };
                match message {
                    Some(message) => {
                        local
                            .session
                            .shared
                            .outbound
                            .send(Route::Request(id), message)
                            .await
                    }
                    None => local.session.shared.outbound.abandon(&id),
                }
            }
            Forward::Resume {
                session,
                last_event_id,
                reply_node,
                tag,
            } => {
                let state = state.clone();
                tokio::spawn(async move {
                    super::cluster_resume::serve_resume(
                        state,
                        session,
                        last_event_id,
                        reply_node,
                        tag,
                    )
                    .await
                });
            }
            Forward::ResumeStep { tag, step } => {
                super::cluster_resume::take_step(&state.cluster, tag, step);
            }
            Forward::ModernCall {
                tag,
                principal,
                message,
                reply_node,
            } => {
                let state = state.clone();
                tokio::spawn(super::modern::run_forwarded(
                    state, tag, principal, message, reply_node,
                ));
            }
            Forward::ModernDeliver { tag, message } => {
                super::modern::deliver_forwarded(&state, &tag, message)
            }
            Forward::Task {
                task_id,
                responses: Some(responses),
            } => state.options.tasks.deliver(&task_id, responses).await,
            Forward::Task {
                task_id,
                responses: None,
            } => state.options.tasks.cancel_local(&task_id),
            Forward::Deleted { session } => {
                state.cluster.streams.end(&session);
                if let Some(local) = state.sessions.remove(&session) {
                    tracing::info!(session_id = %session, "session deleted on another node");
                    state.tasks.spawn(async move { local.close().await });
                }
            }
        }
    }
}

/// Runs a request another node forwarded here; its messages go back to `reply_node`.
async fn run_forwarded(
    state: Arc<HttpState>,
    session_id: String,
    id: RequestId,
    method: String,
    message: Value,
    reply_node: String,
) {
    let cluster = state.cluster.clone();
    let local = state.sessions.get(&session_id);
    let ttl = cluster.session_ttl;
    let session = match resolve(&state, &cluster, &session_id, local, true, None, ttl).await {
        Ok(Resolved::Here(session)) => session,
        Ok(Resolved::Gone | Resolved::Elsewhere) | Err(_) => {
            let reply = error_response(
                Some(&id),
                &rpc_error::with_code(INTERNAL_ERROR, "the session is gone on the thread's node"),
            );
            let forward = Forward::Deliver {
                session: session_id,
                id,
                message: Some(reply),
            };
            let _ = cluster.forward(Some(&reply_node), &forward).await;
            return;
        }
    };
    cluster.add_remote(&session_id, &id, &reply_node);
    if cluster
        .register_call(&session_id, &id, cluster.node_id(), false)
        .await
        .is_err()
    {
        tracing::warn!(%session_id, %id, "forwarded request not recorded: cancellations may miss it");
    }
    let _in_flight = InFlight::new(&state.metrics);
    session
        .session
        .clone()
        .handle_request(id.clone(), method, message)
        .await;
    cluster.remove_remote(&session_id, &id);
    cluster.unregister_call(&session_id, &id).await;
}

/// Keeps the shared metadata of sessions active here within the last `period` (an open
/// connection, or a request or a connection closing since) alive, drops local copies of
/// sessions that ended elsewhere, and purges what expired from the stores.
pub(super) async fn refresh_connected(
    state: &Arc<HttpState>,
    cluster: &Arc<Cluster>,
    period: std::time::Duration,
) {
    let now = tokio::time::Instant::now();
    for (session_id, session) in state.sessions.snapshot() {
        // A session idle here since a connection closed expires as if touched then.
        let ttl = match session.hub.idle_for(now) {
            None => cluster.session_ttl,
            Some(idle) if idle < period => cluster.session_ttl.saturating_sub(idle),
            Some(_) => continue,
        };
        let _ = resolve(state, cluster, &session_id, Some(session), false, None, ttl).await;
    }
    cluster.sessions.purge_expired();
}

/// The 400 for a `Last-Event-ID` that names no resumable stream.
fn resume_refusal(last_event_id: Option<&str>) -> Response {
    let message = match last_event_id.map(parse_event_id) {
        Some(None) => "malformed Last-Event-ID",
        _ => "Last-Event-ID names a stream that is no longer kept",
    };
    rpc_status(StatusCode::BAD_REQUEST, None, INVALID_REQUEST, message)
}
