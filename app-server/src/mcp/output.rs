//! Where outgoing MCP messages go.
//!
//! The session core tags each message with a [`Route`]: the client request it belongs to, or
//! none. The transport decides the stream: stdio has only one, streamable HTTP puts a message
//! on the POST stream of its request when there is one and on the GET stream otherwise, so
//! that every message travels on exactly one stream.

use std::future::Future;
use std::pin::Pin;

use app_server_protocol::jsonrpc::RequestId;
use serde_json::Value;
use tokio::sync::mpsc;

/// Which client request an outgoing message relates to.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// Part of the handling of this client request (its events, its elicitations, its
    /// response).
    Request(RequestId),
    /// Not tied to a request.
    Standalone,
}

/// A transport's sending half for one MCP session.
pub trait Outbound: Send + Sync + 'static {
    /// Sends one JSON-RPC message. Awaiting it applies the transport's backpressure.
    fn send(&self, route: Route, message: Value) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;

    /// The request `id` ended without a response (the client cancelled it): the transport
    /// closes whatever stream was waiting for that response.
    fn abandon(&self, id: &RequestId);
}

/// stdio: one stream, one line per message.
pub struct StdioOutbound {
    lines: mpsc::Sender<String>,
}

impl StdioOutbound {
    /// Writes through the writer task fed by `lines`.
    pub fn new(lines: mpsc::Sender<String>) -> Self {
        Self { lines }
    }
}

impl Outbound for StdioOutbound {
    fn send(&self, _route: Route, message: Value) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            // A closed writer means stdout is gone; nothing is left to tell.
            let _ = self.lines.send(message.to_string()).await;
        })
    }

    fn abandon(&self, _id: &RequestId) {}
}
