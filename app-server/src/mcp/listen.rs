//! `subscriptions/listen` of MCP 2026-07-28: a long-lived request on which a client receives
//! notifications that belong to no request stream of its own.
//!
//! The stream opens with `notifications/subscriptions/acknowledged`, naming the notification
//! types the server honours; every notification on it carries the listen request's id in
//! `_meta["io.modelcontextprotocol/subscriptionId"]`. The list-changed types are never
//! honoured (the lists of a server do not change while it runs). Tandem's own type,
//! `"io.tandem/codexEvents": true`, carries the `codex/event`, progress and log messages of the
//! principal's 2026 calls that have no stream (a `tools/call` answered with one JSON object
//! over HTTP): the role of the 2025 GET stream. A listener gets its own principal's messages
//! only. The stream lasts until the client cancels the request or closes its stream.

use std::sync::{Arc, Mutex};

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::mcp::output::{Outbound, Route};
use crate::mcp::protocol::notification;
use crate::mcp::session::McpSession;
use crate::rpc_error;
use tandem_core::principal::Principal;
use tandem_core::sync::lock;

/// `_meta` key naming the subscription a notification belongs to.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
/// The filter key of Tandem's call messages.
pub const CODEX_EVENTS: &str = "io.tandem/codexEvents";

struct Listener {
    principal: String,
    id: RequestId,
    outbound: Arc<dyn Outbound>,
}

/// The open `subscriptions/listen` streams of one server that asked for Tandem's call
/// messages.
#[derive(Default)]
pub struct Listeners {
    open: Mutex<Vec<Listener>>,
}

impl std::fmt::Debug for Listeners {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Listeners").finish_non_exhaustive()
    }
}

impl Listeners {
    /// Sends `message` (a notification) to every listener of `principal`, tagged with its
    /// subscription id.
    pub async fn publish(&self, principal: &Principal, message: &Value) {
        if message.get("method").is_none() {
            return;
        }
        let targets: Vec<(RequestId, Arc<dyn Outbound>)> = lock(&self.open)
            .iter()
            .filter(|listener| listener.principal == principal.name())
            .map(|listener| (listener.id.clone(), listener.outbound.clone()))
            .collect();
        for (id, outbound) in targets {
            outbound
                .send(Route::Request(id.clone()), tagged(message.clone(), &id))
                .await;
        }
    }

    fn remove(&self, principal: &str, id: &RequestId) {
        lock(&self.open)
            .retain(|listener| !(listener.principal == principal && &listener.id == id));
    }
}

/// `message` with the subscription id `id` in its `params._meta`.
fn tagged(mut message: Value, id: &RequestId) -> Value {
    if !message["params"].is_object() {
        message["params"] = json!({});
    }
    if !message["params"]["_meta"].is_object() {
        message["params"]["_meta"] = json!({});
    }
    message["params"]["_meta"][SUBSCRIPTION_ID_KEY] = json!(id);
    message
}

impl McpSession {
    /// Serves `subscriptions/listen` `id`: the acknowledgement, then (with `CODEX_EVENTS`) the
    /// principal's stream-less call messages until `cancel` fires. Always `None` once open
    /// (the stream ends without a response).
    pub(crate) async fn listen(
        &self,
        id: &RequestId,
        params: &Value,
        cancel: CancellationToken,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        let Some(filter) = params.get("notifications").and_then(Value::as_object) else {
            return Some(Err(rpc_error::invalid_params(
                "subscriptions/listen needs the object `notifications`",
            )));
        };
        let codex_events = filter.get(CODEX_EVENTS) == Some(&Value::Bool(true));
        let mut honoured = Map::new();
        if codex_events {
            honoured.insert(CODEX_EVENTS.into(), json!(true));
        }
        let acknowledged = notification(
            "notifications/subscriptions/acknowledged",
            json!({"notifications": honoured}),
        );
        self.shared
            .outbound
            .send(Route::Request(id.clone()), tagged(acknowledged, id))
            .await;
        let listeners = &self.shared.options.listeners;
        if codex_events {
            lock(&listeners.open).push(Listener {
                principal: self.principal.name().to_string(),
                id: id.clone(),
                outbound: self.shared.outbound.clone(),
            });
        }
        cancel.cancelled().await;
        listeners.remove(self.principal.name(), id);
        None
    }
}
