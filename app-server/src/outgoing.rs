//! The one outgoing sender of a connection: responses, notifications and server requests.
//!
//! It owns server-request id allocation (integers from 0 per connection), the map of pending
//! server requests, and the per-connection notification filters (experimental gating and
//! `optOutNotificationMethods`). Handlers hand it payloads; it builds every envelope.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::tables::{ServerNotification, ServerRequestPayload};
use app_server_protocol::tables_meta::Stability;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// The outcome of a server request: the client's `result`, or its `error` object.
pub type ServerRequestOutcome = Result<Value, Value>;

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
    next_request_id: AtomicI64,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<ServerRequestOutcome>>>,
    filter: OnceLock<NotificationFilter>,
}

/// Why a server request produced no usable answer.
#[derive(Debug, PartialEq)]
pub enum ServerRequestFailure {
    /// The connection closed, or the entry was cancelled, before the client answered.
    Closed,
    /// The client did not answer within the timeout; the entry was removed.
    TimedOut,
    /// The client answered with a JSON-RPC error.
    ClientError(Value),
}

impl OutgoingSender {
    /// A sender that queues serialized lines on `lines` (the writer task's queue).
    pub fn new(lines: mpsc::Sender<String>) -> Self {
        Self {
            lines,
            next_request_id: AtomicI64::new(0),
            pending: Mutex::new(HashMap::new()),
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
    /// client's answer. The entry stays pending until answered or [`Self::cancel`]led.
    pub async fn send_request(
        &self,
        payload: ServerRequestPayload,
    ) -> (RequestId, oneshot::Receiver<ServerRequestOutcome>) {
        let id = RequestId::Integer(self.next_request_id.fetch_add(1, Ordering::Relaxed));
        let (sender, receiver) = oneshot::channel();
        self.pending_map().insert(id.clone(), sender);
        let request = payload.into_request(id.clone());
        self.send_serialized(&request).await;
        (id, receiver)
    }

    /// Sends a server request and waits for the answer, at most `timeout`. On timeout the
    /// entry is cancelled, so a late answer is ignored (and logged by the caller of
    /// [`Self::resolve`]).
    #[allow(
        dead_code,
        reason = "used by approvals, which come with the tools issue; tested here"
    )]
    pub async fn request(
        &self,
        payload: ServerRequestPayload,
        timeout: std::time::Duration,
    ) -> (RequestId, Result<Value, ServerRequestFailure>) {
        let (id, receiver) = self.send_request(payload).await;
        let outcome = match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(error))) => Err(ServerRequestFailure::ClientError(error)),
            Ok(Err(_)) => Err(ServerRequestFailure::Closed),
            Err(_) => {
                self.cancel(&id);
                Err(ServerRequestFailure::TimedOut)
            }
        };
        (id, outcome)
    }

    /// Delivers a client's answer to the waiting request. Returns `false` for ids that are not
    /// pending (never issued, already answered, or cleaned up); the caller logs those.
    pub fn resolve(&self, id: &RequestId, outcome: ServerRequestOutcome) -> bool {
        let Some(sender) = self.pending_map().remove(id) else {
            return false;
        };
        // The waiter may have given up (turn interrupted); that is not an error.
        let _ = sender.send(outcome);
        true
    }

    /// Forgets a pending request (timeout, turn end). Returns whether it was pending.
    pub fn cancel(&self, id: &RequestId) -> bool {
        self.pending_map().remove(id).is_some()
    }

    /// Drops every pending request, so their waiters see [`ServerRequestFailure::Closed`].
    pub fn cancel_all(&self) {
        self.pending_map().clear();
    }

    /// Number of pending server requests.
    #[allow(
        dead_code,
        reason = "used by approvals, which come with the tools issue; tested here"
    )]
    pub fn pending_count(&self) -> usize {
        self.pending_map().len()
    }

    fn pending_map(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<ServerRequestOutcome>>> {
        // A poisoned map only means another task panicked mid-insert; the map is still usable.
        self.pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

/// Current Unix time in milliseconds.
pub fn unix_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

/// Current Unix time in seconds.
pub fn unix_seconds() -> i64 {
    unix_millis() / 1000
}

#[cfg(test)]
mod tests {
    use app_server_protocol::notifications::WarningNotification;
    use app_server_protocol::server_requests::FileChangeRequestApprovalParams;
    use serde_json::json;

    use super::*;

    fn warning() -> ServerNotification {
        ServerNotification::Warning(WarningNotification {
            thread_id: None,
            message: "careful".into(),
        })
    }

    #[tokio::test]
    async fn server_request_ids_count_from_zero_and_answers_reach_the_waiter() {
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
        assert!(outgoing.resolve(&first, Ok(json!({"decision": "accept"}))));
        assert_eq!(
            receiver.await.expect("answer"),
            Ok(json!({"decision": "accept"}))
        );
        // A second answer to the same id is not pending any more.
        assert!(!outgoing.resolve(&first, Ok(json!({}))));
        assert!(outgoing.cancel(&second));
        assert_eq!(outgoing.pending_count(), 0);
    }

    #[tokio::test]
    async fn unanswered_requests_time_out_and_late_answers_are_refused() {
        let (lines, mut written) = mpsc::channel(8);
        let outgoing = std::sync::Arc::new(OutgoingSender::new(lines));
        let payload =
            ServerRequestPayload::FileChangeRequestApproval(FileChangeRequestApprovalParams {
                thread_id: "t".into(),
                turn_id: "u".into(),
                item_id: "call_1".into(),
                started_at_ms: 1,
                reason: None,
                grant_root: None,
            });
        let (id, outcome) = outgoing
            .request(payload.clone(), std::time::Duration::from_millis(20))
            .await;
        assert_eq!(outcome, Err(ServerRequestFailure::TimedOut));
        assert!(!outgoing.resolve(&id, Ok(json!({"decision": "accept"}))));
        let _ = written.recv().await;

        let answering = {
            let outgoing = outgoing.clone();
            tokio::spawn(async move {
                let line: Value =
                    serde_json::from_str(&written.recv().await.expect("line")).expect("json");
                let id: RequestId = serde_json::from_value(line["id"].clone()).expect("id");
                outgoing.resolve(&id, Err(json!({"code": -32000, "message": "no"})))
            })
        };
        let (_, outcome) = outgoing
            .request(payload, std::time::Duration::from_secs(5))
            .await;
        assert_eq!(
            outcome,
            Err(ServerRequestFailure::ClientError(
                json!({"code": -32000, "message": "no"})
            ))
        );
        assert!(answering.await.expect("join"));
        assert_eq!(outgoing.pending_count(), 0);
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
