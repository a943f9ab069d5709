//! The table of server→client requests awaiting an answer, shared by every front end: the
//! stdio connection's [`crate::outgoing::OutgoingSender`] and each MCP session hold one.
//!
//! It owns id allocation (integers from 0 per table), the map from id to the waiter, and the
//! one way to wait: bounded by a timeout and by the asker's cancellation token, removing the
//! entry on either, so that a late answer is recognised as not pending.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use app_server_protocol::jsonrpc::RequestId;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// What the client sent back: its `result`, or its `error` object.
pub type RequestOutcome = Result<Value, Value>;

/// How waiting for an answer ended.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// The client answered with a result.
    Result(Value),
    /// The client answered with a JSON-RPC error object.
    Error(Value),
    /// The entry was dropped before an answer came: the connection or session is closing.
    Closed,
    /// Nobody answered within the timeout; the entry was removed.
    TimedOut,
    /// The asker's token fired (turn interrupted or ended); the entry was removed.
    Cancelled,
}

/// Pending server requests of one connection or session.
#[derive(Debug, Default)]
pub struct PendingRequests {
    next_id: AtomicI64,
    /// Set in distributed mode (`<node>:`): ids become strings that name the node waiting for
    /// the answer, so that any node can forward it there.
    id_prefix: OnceLock<String>,
    entries: Mutex<HashMap<RequestId, oneshot::Sender<RequestOutcome>>>,
}

impl PendingRequests {
    /// An empty table whose first id is 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes every later id a string `<prefix><number>`; only the first call has an effect.
    pub fn set_id_prefix(&self, prefix: String) {
        let _ = self.id_prefix.set(prefix);
    }

    /// Allocates the next id and registers a waiter for it.
    pub fn register(&self) -> (RequestId, oneshot::Receiver<RequestOutcome>) {
        let number = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = match self.id_prefix.get() {
            Some(prefix) => RequestId::String(format!("{prefix}{number}")),
            None => RequestId::Integer(number),
        };
        let (sender, receiver) = oneshot::channel();
        self.entries().insert(id.clone(), sender);
        (id, receiver)
    }

    /// Delivers a client's answer to its waiter. Returns `false` for ids that are not pending
    /// (never issued, already answered, timed out or cancelled); the caller logs those.
    pub fn resolve(&self, id: &RequestId, outcome: RequestOutcome) -> bool {
        let Some(sender) = self.entries().remove(id) else {
            return false;
        };
        // The waiter may have given up (turn interrupted); that is not an error.
        let _ = sender.send(outcome);
        true
    }

    /// Forgets a pending request. Returns whether it was pending.
    pub fn cancel(&self, id: &RequestId) -> bool {
        self.entries().remove(id).is_some()
    }

    /// Drops every pending request, so their waiters see [`Answer::Closed`].
    pub fn cancel_all(&self) {
        self.entries().clear();
    }

    /// Number of pending requests.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Waits for the answer to `id`, at most `timeout` and until `cancel` fires. On timeout
    /// or cancellation the entry is removed, so a late answer is refused by
    /// [`Self::resolve`].
    pub async fn wait(
        &self,
        id: &RequestId,
        receiver: oneshot::Receiver<RequestOutcome>,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Answer {
        tokio::select! {
            outcome = tokio::time::timeout(timeout, receiver) => match outcome {
                Ok(Ok(Ok(result))) => Answer::Result(result),
                Ok(Ok(Err(error))) => Answer::Error(error),
                Ok(Err(_)) => Answer::Closed,
                Err(_) => {
                    self.cancel(id);
                    Answer::TimedOut
                }
            },
            () = cancel.cancelled() => {
                self.cancel(id);
                Answer::Cancelled
            }
        }
    }

    fn entries(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<RequestOutcome>>> {
        // A poisoned map only means another task panicked mid-insert; the map is still usable.
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    #[tokio::test]
    async fn ids_count_from_zero_and_answers_reach_their_waiter_once() {
        let pending = PendingRequests::new();
        let (first, receiver) = pending.register();
        let (second, _other) = pending.register();
        assert_eq!(first, RequestId::Integer(0));
        assert_eq!(second, RequestId::Integer(1));
        assert!(pending.resolve(&first, Ok(json!({"decision": "accept"}))));
        assert_eq!(
            pending
                .wait(&first, receiver, HOUR, &CancellationToken::new())
                .await,
            Answer::Result(json!({"decision": "accept"}))
        );
        // A second answer to the same id is not pending any more.
        assert!(!pending.resolve(&first, Ok(json!({}))));
        assert!(pending.cancel(&second));
        assert_eq!(pending.len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn unanswered_requests_time_out_and_late_answers_are_refused() {
        let pending = PendingRequests::new();
        let (id, receiver) = pending.register();
        let outcome = pending
            .wait(&id, receiver, HOUR, &CancellationToken::new())
            .await;
        assert_eq!(outcome, Answer::TimedOut);
        assert!(!pending.resolve(&id, Ok(json!({"decision": "accept"}))));
        assert_eq!(pending.len(), 0);
    }

    #[tokio::test]
    async fn cancellation_removes_the_entry_and_errors_and_closing_reach_the_waiter() {
        let pending = Arc::new(PendingRequests::new());
        let cancel = CancellationToken::new();
        let (id, receiver) = pending.register();
        cancel.cancel();
        assert_eq!(
            pending.wait(&id, receiver, HOUR, &cancel).await,
            Answer::Cancelled
        );
        assert!(!pending.resolve(&id, Ok(json!({}))));

        let (id, receiver) = pending.register();
        assert!(pending.resolve(&id, Err(json!({"code": -32000, "message": "no"}))));
        assert_eq!(
            pending
                .wait(&id, receiver, HOUR, &CancellationToken::new())
                .await,
            Answer::Error(json!({"code": -32000, "message": "no"}))
        );

        let (id, receiver) = pending.register();
        let waiter = {
            let pending = pending.clone();
            tokio::spawn(async move {
                pending
                    .wait(&id, receiver, HOUR, &CancellationToken::new())
                    .await
            })
        };
        pending.cancel_all();
        assert_eq!(waiter.await.expect("join"), Answer::Closed);
    }
}
