//! The one outgoing sender of a connection: responses, notifications and server requests.
//!
//! It owns the connection's [`PendingRequests`] table (server-request ids, waiters, timeouts
//! and cancellation) and the per-connection notification filters (experimental gating and
//! `optOutNotificationMethods`). Handlers hand it payloads; it builds every envelope.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::tables::{ServerNotification, ServerRequestPayload};
use app_server_protocol::tables_meta::Stability;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use crate::pending::{PendingRequests, RequestOutcome};
use tandem_core::clock::unix_millis;

/// Per-connection notification settings, fixed at `initialize`.
#[derive(Debug, Default)]
pub struct NotificationFilter {
    /// The connection opted into experimental notifications.
    pub experimental: bool,
    /// Methods the connection does not want.
    pub opted_out: HashSet<String>,
}

/// Sends everything a connection writes.
pub struct OutgoingSender {
    lines: mpsc::Sender<String>,
    /// The connection's own table, or the one its principal's connections share on a
    /// listener (where any of them may answer a question asked of all).
    pending: Arc<PendingRequests>,
    filter: OnceLock<NotificationFilter>,
}

impl OutgoingSender {
    /// A sender that queues serialized lines on `lines` (the writer task's queue).
    pub fn new(lines: mpsc::Sender<String>) -> Self {
        Self::with_pending(lines, Arc::new(PendingRequests::new()))
    }

    /// A sender whose server requests are registered in `pending`, a table other connections
    /// may share.
    pub fn with_pending(lines: mpsc::Sender<String>, pending: Arc<PendingRequests>) -> Self {
        Self {
            lines,
            pending,
            filter: OnceLock::new(),
        }
    }

    /// Fixes the notification filter; later calls are ignored (capabilities are per connection).
    pub fn set_filter(&self, filter: NotificationFilter) {
        let _ = self.filter.set(filter);
    }

    /// Sends a successful response.
    pub async fn send_response<T: Serialize>(&self, id: RequestId, result: &T) {
        #[derive(Serialize)]
        struct Response<'a, T> {
            id: RequestId,
            result: &'a T,
        }
        self.send_serialized(&Response { id, result }).await;
    }

    /// Sends an error response.
    pub async fn send_error(&self, id: RequestId, error: JsonRpcErrorBody) {
        #[derive(Serialize)]
        struct ErrorResponse {
            error: JsonRpcErrorBody,
            id: RequestId,
        }
        self.send_serialized(&ErrorResponse { error, id }).await;
    }

    /// Sends an error for an input line that could not be handled as a request (an
    /// over-long line), with the id recovered from it, or `"id": null` without one.
    pub async fn send_line_error(&self, id: Option<RequestId>, error: JsonRpcErrorBody) {
        #[derive(Serialize)]
        struct ErrorResponse {
            error: JsonRpcErrorBody,
            id: Option<RequestId>,
        }
        self.send_serialized(&ErrorResponse { error, id }).await;
    }

    /// Sends a notification unless the connection opted out of it (or it is experimental and
    /// the connection is not). Adds `emittedAtMs`.
    pub async fn send_notification(&self, notification: &ServerNotification) {
        if let Some(filter) = self.filter.get() {
            if notification.stability() == Stability::Experimental && !filter.experimental {
                return;
            }
            if filter.opted_out.contains(notification.method()) {
                return;
            }
        }
        match notification_line(notification, unix_millis()) {
            Ok(line) => self.queue(line).await,
            Err(error) => tracing::error!(%error, "cannot serialize a notification"),
        }
    }

    /// Sends a server request with the next id and returns the id and a receiver for the
    /// client's answer. The entry stays pending until answered, timed out or cancelled through
    /// [`Self::pending`].
    pub async fn send_request(
        &self,
        payload: ServerRequestPayload,
    ) -> (RequestId, oneshot::Receiver<RequestOutcome>) {
        let (id, receiver) = self.pending.register();
        let request = payload.into_request(id.clone());
        self.send_serialized(&request).await;
        (id, receiver)
    }

    /// Sends a server request under an id already registered in [`Self::pending`] (a question
    /// asked of several connections at once, or asked again of one that resumed its thread).
    pub async fn send_request_as(&self, id: RequestId, payload: ServerRequestPayload) {
        let request = payload.into_request(id);
        self.send_serialized(&request).await;
    }

    /// The connection's pending server requests: answers are resolved and waits bounded here.
    pub fn pending(&self) -> &PendingRequests {
        &self.pending
    }

    async fn send_serialized<T: Serialize>(&self, message: &T) {
        match serde_json::to_string(message) {
            Ok(line) => self.queue(line).await,
            Err(error) => tracing::error!(%error, "cannot serialize an outgoing message"),
        }
    }

    async fn queue(&self, line: String) {
        if self.lines.send(line).await.is_err() {
            tracing::debug!("output closed; dropping a message");
        }
    }
}

/// `{"method":…,"params":…,"emittedAtMs":…}` without an intermediate `Value`.
fn notification_line(
    notification: &ServerNotification,
    emitted_at_ms: i64,
) -> Result<String, serde_json::Error> {
    let mut line = serde_json::to_string(notification)?;
    // The adjacently tagged enum always serializes as an object; splice the stamp in.
    if line.ends_with('}') {
        line.pop();
        line.push_str(",\"emittedAtMs\":");
        line.push_str(&emitted_at_ms.to_string());
        line.push('}');
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use app_server_protocol::notifications::WarningNotification;
    use app_server_protocol::server_requests::FileChangeRequestApprovalParams;
    use serde_json::{Value, json};

    use super::*;

    fn warning() -> ServerNotification {
        ServerNotification::Warning(WarningNotification {
            thread_id: None,
            message: "careful".into(),
        })
    }

    #[tokio::test]
    async fn server_requests_go_out_with_ids_from_the_pending_table() {
        let (lines, mut written) = mpsc::channel(8);
        let outgoing = OutgoingSender::new(lines);
        let payload =
            ServerRequestPayload::FileChangeRequestApproval(FileChangeRequestApprovalParams {
                thread_id: "t".into(),
                turn_id: "u".into(),
                item_id: "call_1".into(),
                started_at_ms: 1,
                reason: None,
                grant_root: None,
            });
        let (first, receiver) = outgoing.send_request(payload.clone()).await;
        let (second, _other) = outgoing.send_request(payload).await;
        assert_eq!(first, RequestId::Integer(0));
        assert_eq!(second, RequestId::Integer(1));
        let line: Value = serde_json::from_str(&written.recv().await.expect("line")).expect("json");
        assert_eq!(line["method"], "item/fileChange/requestApproval");
        assert_eq!(line["id"], 0);
        assert!(
            outgoing
                .pending()
                .resolve(&first, Ok(json!({"decision": "accept"})))
        );
        assert_eq!(
            receiver.await.expect("answer"),
            Ok(json!({"decision": "accept"}))
        );
        assert!(outgoing.pending().cancel(&second));
        assert_eq!(outgoing.pending().len(), 0);
    }

    #[tokio::test]
    async fn notifications_carry_emitted_at_and_honour_opt_out() {
        let (lines, mut written) = mpsc::channel(8);
        let outgoing = OutgoingSender::new(lines);
        outgoing.send_notification(&warning()).await;
        let line: Value = serde_json::from_str(&written.recv().await.expect("line")).expect("json");
        assert_eq!(line["method"], "warning");
        assert_eq!(line["params"]["message"], "careful");
        assert!(line["emittedAtMs"].as_i64().is_some_and(|ms| ms > 0));
        outgoing.set_filter(NotificationFilter {
            experimental: false,
            opted_out: HashSet::from(["warning".to_string()]),
        });
        outgoing.send_notification(&warning()).await;
        outgoing
            .send_response(RequestId::Integer(3), &json!({}))
            .await;
        assert_eq!(
            written.recv().await.expect("line"),
            r#"{"id":3,"result":{}}"#
        );
    }

    #[tokio::test]
    async fn error_responses_put_error_before_id() {
        let (lines, mut written) = mpsc::channel(8);
        let outgoing = OutgoingSender::new(lines);
        outgoing
            .send_error(
                RequestId::String("x".into()),
                JsonRpcErrorBody {
                    code: -32600,
                    message: "Not initialized".into(),
                    data: None,
                },
            )
            .await;
        assert_eq!(
            written.recv().await.expect("line"),
            r#"{"error":{"code":-32600,"message":"Not initialized"},"id":"x"}"#
        );
    }
}
