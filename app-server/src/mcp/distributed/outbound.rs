//! The [`Outbound`] of a distributed HTTP session: a request's messages go to its POST stream
//! on this node as before; messages for the standalone stream go to the shared event store
//! and the bus, to reach the GET connection on whichever node holds it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use app_server_protocol::jsonrpc::RequestId;
use serde_json::Value;

use crate::mcp::distributed::Cluster;
use crate::mcp::http::streams::StreamHub;
use crate::mcp::output::{Outbound, Route};

/// Routes one distributed session's messages.
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
            if let Some(message) = self.hub.route_here(route, message, false) {
                self.cluster
                    .publish_standalone(&self.session_id, &message)
                    .await;
            }
        })
    }

    fn abandon(&self, id: &RequestId) {
        Outbound::abandon(
            &crate::mcp::http::streams::HttpOutbound {
                hub: self.hub.clone(),
            },
            id,
        );
    }
}
