//! `Last-Event-ID` of a POST stream on any node: a POST stream's events stay on
//! the node that served the POST, so a resume landing elsewhere is relayed from that node
//! over the bus. The node holding stream `n` of a session is on record in Redis (see
//! [`Cluster::register_call`]); it resumes the stream from its hub and sends each event back
//! as a [`Forward::ResumeStep`] to the node the client is connected to.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use app_server_protocol::jsonrpc::error_codes::INVALID_REQUEST;
use axum::http::StatusCode;
use axum::response::Response;
use tokio::sync::{mpsc, oneshot};

use crate::mcp::distributed::{Cluster, Forward, PendingResume, ResumeStep};
use crate::mcp::http::cluster::unavailable;
use crate::mcp::http::sessions::HttpSession;
use crate::mcp::http::streams::{Attached, SseEvent};
use crate::mcp::http::{HttpState, rpc_status};
use tandem_core::sync::lock;

/// How long the node holding the stream has to accept the resume.
const ACCEPT_TIMEOUT: Duration = Duration::from_secs(5);

static NEXT_TAG: AtomicU64 = AtomicU64::new(0);

fn not_kept() -> Response {
    rpc_status(
        StatusCode::BAD_REQUEST,
        None,
        INVALID_REQUEST,
        "Last-Event-ID names a stream that is no longer kept",
    )
}

/// GET with the `Last-Event-ID` of POST stream `stream`, which this node does not hold: the
/// stream relayed from the node that does.
pub(super) async fn resume_elsewhere(
    state: &Arc<HttpState>,
    cluster: &Arc<Cluster>,
    session: &HttpSession,
    stream: u64,
    last_event_id: &str,
) -> Response {
    let session_id = session.session.shared.session_id.clone();
    let node = match cluster.stream_node(&session_id, stream).await {
        Ok(Some(node)) if node != cluster.node_id() => node,
        Ok(_) => return not_kept(),
        Err(error) => return *unavailable(None, &error),
    };
    let tag = NEXT_TAG.fetch_add(1, Ordering::Relaxed);
    let (accepted, answer) = oneshot::channel();
    let (events, receiver) = mpsc::channel(state.http.replay_buffer * 16);
    lock(&cluster.resumes).insert(
        tag,
        PendingResume {
            accepted: Some(accepted),
            events,
        },
    );
    let forward = Forward::Resume {
        session: session_id.clone(),
        last_event_id: last_event_id.to_string(),
        reply_node: cluster.node_id().to_string(),
        tag,
    };
    if let Err(error) = cluster.forward(Some(&node), &forward).await {
        lock(&cluster.resumes).remove(&tag);
        return *unavailable(None, &error);
    }
    match tokio::time::timeout(ACCEPT_TIMEOUT, answer).await {
        Ok(Ok(true)) => {
            tracing::info!(%session_id, stream, %node, "POST stream resumed from the node that served it");
            let attached = Attached {
                events: receiver,
                guard: session.hub.connection_guard(),
            };
            super::sse_response(attached, state.http.keep_alive, None, &state.metrics)
        }
        // Refused, or the node is gone (and the stream with it).
        _ => {
            lock(&cluster.resumes).remove(&tag);
            not_kept()
        }
    }
}

/// A step of a resume this node asked for.
pub(super) fn take_step(cluster: &Cluster, tag: u64, step: ResumeStep) {
    let mut resumes = lock(&cluster.resumes);
    let Some(pending) = resumes.get_mut(&tag) else {
        return;
    };
    match step {
        ResumeStep::Accepted => {
            if let Some(accepted) = pending.accepted.take() {
                let _ = accepted.send(true);
            }
        }
        ResumeStep::Refused => {
            if let Some(accepted) = pending.accepted.take() {
                let _ = accepted.send(false);
            }
            resumes.remove(&tag);
        }
        ResumeStep::Event { id, data } => {
            // A client that stopped reading (or left) loses the relay; it can resume again.
            if pending.events.try_send(SseEvent { id, data }).is_err() {
                resumes.remove(&tag);
            }
        }
        // Dropping the sender ends the client's stream.
        ResumeStep::End => {
            resumes.remove(&tag);
        }
    }
}

/// Resumes a POST stream this node served for a client connected to `reply_node`.
pub(super) async fn serve_resume(
    state: Arc<HttpState>,
    session_id: String,
    last_event_id: String,
    reply_node: String,
    tag: u64,
) {
    let cluster = state.cluster.clone();
    let send = |step: ResumeStep| {
        let cluster = cluster.clone();
        let reply_node = reply_node.clone();
        async move {
            let forward = Forward::ResumeStep { tag, step };
            cluster.forward(Some(&reply_node), &forward).await.is_ok()
        }
    };
    let attached = state
        .sessions
        .get(&session_id)
        .and_then(|session| session.hub.resume(&last_event_id).ok());
    let Some(Attached { mut events, guard }) = attached else {
        send(ResumeStep::Refused).await;
        return;
    };
    if !send(ResumeStep::Accepted).await {
        return;
    }
    while let Some(event) = events.recv().await {
        let step = ResumeStep::Event {
            id: event.id,
            data: event.data,
        };
        if !send(step).await {
            tracing::warn!(%session_id, %reply_node, "resumed POST stream lost: Redis unavailable");
            return;
        }
    }
    drop(guard);
    send(ResumeStep::End).await;
}
