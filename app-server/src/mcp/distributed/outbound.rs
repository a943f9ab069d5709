//! The [`Outbound`] of an HTTP session: a request's messages go to its POST stream on this
//! node (or, for a request run here for a client on another node, to that node); messages for
//! the standalone stream go to the event store and the bus, to reach the GET connection on
//! whichever node holds it (this process, without `--redis`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use app_server_protocol::jsonrpc::RequestId;
use serde_json::Value;

use crate::mcp::distributed::{Cluster, Forward};
use crate::mcp::http::streams::StreamHub;
use crate::mcp::output::{Outbound, Route};

/// Routes one HTTP session's messages.
pub struct ClusterOutbound {
    /// The session's streams on this node.
    pub hub: Arc<StreamHub>,
    /// The cluster.
    pub cluster: Arc<Cluster>,
    /// The session.
    pub session_id: String,
}

impl Outbound for ClusterOutbound {
    fn send(&self, route: Route, message: Value) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            if let Route::Request(id) = &route
                && let Some(node) = self.cluster.remote_node(&self.session_id, id)
            {
                let forward = Forward::Deliver {
                    session: self.session_id.clone(),
                    id: id.clone(),
                    message: Some(message),
                };
                if self.cluster.forward(Some(&node), &forward).await.is_err() {
                    tracing::warn!(session_id = %self.session_id, %id, "message of a forwarded request lost");
                }
                return;
            }
            // A thread a call ran on is this node's from before the client hears of it, so a
            // `codex-reply` landing on another node finds the owner.
            if let Some(thread_id) = message
                .pointer("/result/structuredContent/threadId")
                .and_then(Value::as_str)
                && self.cluster.take_lease(thread_id).await.is_err()
            {
                tracing::warn!(%thread_id, "thread lease not taken: Redis unavailable");
            }
            if let Some(message) = self.hub.route_here(route, message, false) {
                self.cluster
                    .publish_standalone(&self.session_id, &message)
                    .await;
            }
        })
    }

    fn abandon(&self, id: &RequestId) {
        if let Some(node) = self.cluster.remote_node(&self.session_id, id) {
            let cluster = self.cluster.clone();
            let forward = Forward::Deliver {
                session: self.session_id.clone(),
                id: id.clone(),
                message: None,
            };
            tokio::spawn(async move { cluster.forward(Some(&node), &forward).await });
            return;
        }
        self.hub.abandon_request(id);
    }
}
