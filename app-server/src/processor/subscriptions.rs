//! Several connections on one engine: which connection receives which thread's events, and
//! the questions asked of all of them.
//!
//! On a listener (`--listen ws://` or `unix://`) every connection of one principal drives the
//! same engine, whose [`EventSink`] and [`Approver`] is that principal's [`ThreadHub`]. A
//! connection that starts, resumes or forks a thread (or starts a turn on it) is subscribed to
//! it and receives its notifications; `thread/unsubscribe` and the end of the connection stop
//! that. Notifications that name no thread go to every connection of the principal.
//!
//! A question (approval, user input) goes to every subscribed connection under one request
//! id, registered once in the principal's shared [`PendingRequests`]: the first answer wins,
//! later ones are refused as not pending, and every subscribed connection then receives
//! `serverRequest/resolved`. A question nobody has answered stays open while its turn waits,
//! and a connection that subscribes to the thread (by resuming it, say after a reconnect)
//! receives it again under the same id.
//!
//! A thread left without subscribers (its last connection gone) is unloaded, at once when it
//! is idle and when its turn completes otherwise, so that a long-running server does not keep
//! every thread it ever served in memory; it stays stored and can be resumed.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::notifications::ServerRequestResolvedNotification;
use app_server_protocol::tables::ServerNotification;
use tokio_util::sync::CancellationToken;

use crate::pending::{Answer, PendingRequests};
use crate::processor::approvals::{APPROVAL_TIMEOUT, ClientApprover, error_message};
use tandem_core::engine::approval::{ApprovalReply, ApprovalRequest, Approver};
use tandem_core::engine::server_requests::to_server_request;
use tandem_core::engine::{Engine, EventSink};
use tandem_core::sync::lock;

/// Identifies one connection within its hub.
pub type ConnectionId = u64;

/// The connections of one principal on a listener, and what each is subscribed to.
#[derive(Default)]
pub struct ThreadHub {
    next_connection: AtomicU64,
    connections: Mutex<HashMap<ConnectionId, Member>>,
    /// Subscribed connections by thread id, in the order they subscribed.
    subscribers: Mutex<HashMap<String, Vec<ConnectionId>>>,
    /// Server-request ids and waiters, shared by every connection of the principal.
    pending: Arc<PendingRequests>,
    /// Questions asked and not yet answered, by thread id, for connections that subscribe
    /// later.
    open: Mutex<HashMap<String, Vec<OpenQuestion>>>,
    /// Questions withdrawn by a cancelled turn, announced after that thread's `turn/completed`.
    deferred: Mutex<HashMap<String, Vec<RequestId>>>,
    /// Notifications held for a connection that resumed a thread, until its resume response
    /// is out (see [`ThreadHub::subscribe_paused`]).
    held: Mutex<HashMap<(ConnectionId, String), Vec<ServerNotification>>>,
    /// The principal's engine, for unloading threads nobody is subscribed to any more; set
    /// once the engine exists and taken away at shutdown (the engine holds the hub).
    engine: Mutex<Option<Engine>>,
}

/// Most notifications held for one resuming connection; beyond it they are dropped, with a
/// warning (the resume response goes out within one request handler, so the bound is only
/// reached when that handler fails).
const MAX_HELD: usize = 4096;

/// One connection of the hub.
struct Member {
    approver: Arc<ClientApprover>,
    /// Fired to close the connection (a client too slow to take its events).
    close: CancellationToken,
}

/// How long a notification may wait for room in one connection's queue before that
/// connection is closed: a client that stops reading must not hold the turns that every
/// other subscriber follows.
const SLOW_CLIENT: Duration = Duration::from_secs(10);

/// A question waiting for its first answer.
struct OpenQuestion {
    id: RequestId,
    request: ApprovalRequest,
    /// The connections that were sent it.
    sent_to: Vec<ConnectionId>,
}

impl ThreadHub {
    /// An empty hub.
    pub fn new() -> Self {
        Self::default()
    }

    /// Gives the hub the engine it serves, whose orphaned threads it unloads.
    pub fn attach_engine(&self, engine: Engine) {
        *lock(&self.engine) = Some(engine);
    }

    /// Takes the engine back (at shutdown), ending the reference cycle between the two.
    pub fn detach_engine(&self) {
        lock(&self.engine).take();
    }

    /// Unloads `thread_id` if no connection is subscribed to it and it runs no turn (a
    /// running turn is left to finish; its `turn/completed` comes back here).
    fn unload_if_orphaned(&self, thread_id: &str) {
        if lock(&self.subscribers).contains_key(thread_id) {
            return;
        }
        let Some(engine) = lock(&self.engine).clone() else {
            return;
        };
        if !engine.is_loaded(thread_id) || engine.has_active_turn(thread_id) {
            return;
        }
        let thread_id = thread_id.to_string();
        tokio::spawn(async move {
            match engine.unsubscribe(&thread_id).await {
                Ok(_) => tracing::info!(%thread_id, "unloaded a thread no connection follows"),
                Err(error) => {
                    tracing::warn!(%thread_id, %error, "cannot unload a thread nobody follows");
                }
            }
        });
    }

    /// The table every connection of the principal registers its server requests in, so
    /// that any of them may answer.
    pub fn pending(&self) -> Arc<PendingRequests> {
        self.pending.clone()
    }

    /// Adds a connection, which asks and is notified through `approver`. The token fires
    /// when the hub closes the connection (see [`SLOW_CLIENT`]).
    pub fn connect(&self, approver: Arc<ClientApprover>) -> (ConnectionId, CancellationToken) {
        let id = self.next_connection.fetch_add(1, Ordering::Relaxed);
        let close = CancellationToken::new();
        lock(&self.connections).insert(
            id,
            Member {
                approver,
                close: close.clone(),
            },
        );
        (id, close)
    }

    /// Removes a connection and its subscriptions; the threads it drove keep running, and
    /// those it was the last subscriber of are unloaded once idle.
    pub fn disconnect(&self, connection: ConnectionId) {
        lock(&self.connections).remove(&connection);
        lock(&self.held).retain(|(held_for, _), _| *held_for != connection);
        let mut orphaned = Vec::new();
        lock(&self.subscribers).retain(|thread_id, subscribed| {
            let before = subscribed.len();
            subscribed.retain(|id| *id != connection);
            if subscribed.is_empty() && before > 0 {
                orphaned.push(thread_id.clone());
            }
            !subscribed.is_empty()
        });
        for thread_id in orphaned {
            self.unload_if_orphaned(&thread_id);
        }
    }

    /// Subscribes `connection` to `thread_id`'s notifications (nothing when it already is).
    pub fn subscribe(&self, connection: ConnectionId, thread_id: &str) {
        let mut subscribers = lock(&self.subscribers);
        let subscribed = subscribers.entry(thread_id.to_string()).or_default();
        if !subscribed.contains(&connection) {
            subscribed.push(connection);
        }
    }

    /// Subscribes `connection` to `thread_id` with delivery held: the thread's notifications
    /// are kept, in order, until [`Self::release`], so that a resume response read from the
    /// live turn reaches the client before any event that followed it.
    pub fn subscribe_paused(&self, connection: ConnectionId, thread_id: &str) {
        lock(&self.held)
            .entry((connection, thread_id.to_string()))
            .or_default();
        self.subscribe(connection, thread_id);
    }

    /// Delivers what was held for `connection` on `thread_id`, in order, and ends the hold.
    pub async fn release(&self, connection: ConnectionId, thread_id: &str) {
        let approver = lock(&self.connections)
            .get(&connection)
            .map(|member| member.approver.clone());
        let Some(approver) = approver else {
            lock(&self.held).remove(&(connection, thread_id.to_string()));
            return;
        };
        let key = (connection, thread_id.to_string());
        loop {
            let batch = {
                let mut held = lock(&self.held);
                match held.get_mut(&key) {
                    Some(batch) if !batch.is_empty() => std::mem::take(batch),
                    _ => {
                        held.remove(&key);
                        return;
                    }
                }
            };
            for notification in batch {
                approver.emit(notification).await;
            }
        }
    }

    /// Sends `connection` the questions of `thread_id` still waiting for an answer that it
    /// has not been sent yet, under their original ids.
    pub async fn replay_open_questions(&self, connection: ConnectionId, thread_id: &str) {
        let approver = lock(&self.connections)
            .get(&connection)
            .map(|member| member.approver.clone());
        let Some(approver) = approver else {
            return;
        };
        let replays: Vec<(RequestId, ApprovalRequest)> = {
            let mut open = lock(&self.open);
            open.get_mut(thread_id)
                .into_iter()
                .flatten()
                .filter(|question| !question.sent_to.contains(&connection))
                .map(|question| {
                    question.sent_to.push(connection);
                    (question.id.clone(), question.request.clone())
                })
                .collect()
        };
        for (id, request) in replays {
            let rendered = to_server_request(request, approver.user_input_method());
            approver
                .outgoing()
                .send_request_as(id, rendered.payload)
                .await;
        }
    }

    /// How many connections other than `connection` are subscribed to `thread_id`.
    pub fn other_subscribers(&self, connection: ConnectionId, thread_id: &str) -> usize {
        lock(&self.subscribers)
            .get(thread_id)
            .map_or(0, |subscribed| {
                subscribed.iter().filter(|id| **id != connection).count()
            })
    }

    /// Ends `connection`'s subscription to `thread_id`.
    pub fn unsubscribe(&self, connection: ConnectionId, thread_id: &str) {
        let mut subscribers = lock(&self.subscribers);
        if let Some(subscribed) = subscribers.get_mut(thread_id) {
            subscribed.retain(|id| *id != connection);
            if subscribed.is_empty() {
                subscribers.remove(thread_id);
            }
        }
    }

    /// The connections a notification about `thread_id` goes to: its subscribers; for a
    /// thread nobody subscribed to, the connection whose first-generation conversation it is;
    /// for a notification that names no thread, every connection.
    fn recipients(&self, thread_id: Option<&str>) -> Vec<(ConnectionId, Arc<ClientApprover>)> {
        let connections = lock(&self.connections);
        let Some(thread_id) = thread_id else {
            return connections
                .iter()
                .map(|(id, member)| (*id, member.approver.clone()))
                .collect();
        };
        let subscribers = lock(&self.subscribers);
        match subscribers.get(thread_id) {
            Some(subscribed) => subscribed
                .iter()
                .filter_map(|id| {
                    connections
                        .get(id)
                        .map(|member| (*id, member.approver.clone()))
                })
                .collect(),
            None => connections
                .iter()
                .filter(|(_, member)| member.approver.has_conversation(thread_id))
                .map(|(id, member)| (*id, member.approver.clone()))
                .collect(),
        }
    }

    async fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalReply {
        let thread_id = request.thread_id().to_string();
        let recipients = self.recipients(Some(&thread_id));
        // A first-generation conversation asks in its own shapes, of its own connection.
        if let Some((_, approver)) = recipients
            .iter()
            .find(|(_, approver)| approver.has_conversation(&thread_id))
        {
            return approver.request(request, cancel).await;
        }
        let (id, receiver) = self.pending.register();
        let mut expected = None;
        let mut sends = Vec::with_capacity(recipients.len());
        for (_, approver) in &recipients {
            let rendered = to_server_request(request.clone(), approver.user_input_method());
            expected.get_or_insert(rendered.expects);
            sends.push((approver.clone(), rendered.payload));
        }
        // Without a subscriber the question waits for one; its answer is read as the thread
        // API's default request shapes.
        let expected = expected
            .unwrap_or_else(|| to_server_request(request.clone(), Default::default()).expects);
        lock(&self.open)
            .entry(thread_id.clone())
            .or_default()
            .push(OpenQuestion {
                id: id.clone(),
                request,
                sent_to: recipients
                    .iter()
                    .map(|(connection, _)| *connection)
                    .collect(),
            });
        for (approver, payload) in sends {
            approver
                .outgoing()
                .send_request_as(id.clone(), payload)
                .await;
        }
        let answer = self
            .pending
            .wait(&id, receiver, APPROVAL_TIMEOUT, &cancel)
            .await;
        self.close_question(&thread_id, &id);
        let reply = match answer {
            Answer::Result(result) => expected.decode(result),
            Answer::Error(error) => ApprovalReply::Failed(error_message(&error)),
            Answer::TimedOut => ApprovalReply::Failed("approval request timed out".into()),
            Answer::Closed => return ApprovalReply::Withdrawn,
            Answer::Cancelled => {
                lock(&self.deferred).entry(thread_id).or_default().push(id);
                return ApprovalReply::Withdrawn;
            }
        };
        self.resolved(thread_id, id).await;
        reply
    }

    fn close_question(&self, thread_id: &str, id: &RequestId) {
        let mut open = lock(&self.open);
        if let Some(questions) = open.get_mut(thread_id) {
            questions.retain(|question| &question.id != id);
            if questions.is_empty() {
                open.remove(thread_id);
            }
        }
    }

    /// Tells every subscriber of `thread_id` that request `request_id` is settled.
    async fn resolved(&self, thread_id: String, request_id: RequestId) {
        let notification =
            ServerNotification::ServerRequestResolved(ServerRequestResolvedNotification {
                thread_id,
                request_id,
            });
        self.deliver(notification).await;
    }

    async fn deliver(&self, notification: ServerNotification) {
        let mut recipients = {
            let thread_id = notification_thread(&notification);
            let mut recipients = self.recipients(thread_id);
            // Held deliveries are rare (a resume in flight): the thread id is copied only then.
            if let Some(thread_id) = thread_id {
                let mut held = lock(&self.held);
                if !held.is_empty() {
                    recipients.retain(|(connection, _)| {
                        let Some(batch) = held.get_mut(&(*connection, thread_id.to_string()))
                        else {
                            return true;
                        };
                        if batch.len() < MAX_HELD {
                            batch.push(notification.clone());
                        } else {
                            tracing::warn!(thread_id, "dropping a notification held for a resume");
                        }
                        false
                    });
                }
            }
            recipients
        };
        let Some((last_id, last)) = recipients.pop() else {
            return;
        };
        for (connection, approver) in recipients {
            self.emit_to(connection, &approver, notification.clone())
                .await;
        }
        self.emit_to(last_id, &last, notification).await;
    }

    /// Emits to one connection, closing it when its queue stays full for [`SLOW_CLIENT`].
    async fn emit_to(
        &self,
        connection: ConnectionId,
        approver: &ClientApprover,
        notification: ServerNotification,
    ) {
        if tokio::time::timeout(SLOW_CLIENT, approver.emit(notification))
            .await
            .is_err()
        {
            tracing::warn!(
                connection,
                "closing a connection that stopped reading its events"
            );
            let member = lock(&self.connections).remove(&connection);
            if let Some(member) = member {
                member.close.cancel();
            }
            self.disconnect(connection);
        }
    }
}

impl Approver for ThreadHub {
    fn request(
        &self,
        request: ApprovalRequest,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = ApprovalReply> + Send + '_>> {
        Box::pin(self.ask(request, cancel))
    }
}

/// The principal's notification sink: each notification goes to the connections subscribed
/// to its thread, and a `turn/completed` releases the `serverRequest/resolved` of the
/// questions its turn withdrew.
impl EventSink for ThreadHub {
    fn emit(
        &self,
        notification: ServerNotification,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            let completed = match &notification {
                ServerNotification::TurnCompleted(completed) => Some(completed.thread_id.clone()),
                _ => None,
            };
            self.deliver(notification).await;
            if let Some(thread_id) = completed {
                let withdrawn = lock(&self.deferred).remove(&thread_id);
                for request_id in withdrawn.into_iter().flatten() {
                    self.resolved(thread_id.clone(), request_id).await;
                }
                self.unload_if_orphaned(&thread_id);
            }
        })
    }
}

/// The thread a notification is about, or `None` for one that concerns the whole connection.
/// Exhaustive, so that a new notification is routed on purpose.
fn notification_thread(notification: &ServerNotification) -> Option<&str> {
    use ServerNotification as N;
    match notification {
        N::ThreadStarted(started) => Some(&started.thread.id),
        N::ThreadStatusChanged(changed) => Some(&changed.thread_id),
        N::ThreadArchived(thread)
        | N::ThreadUnarchived(thread)
        | N::ThreadClosed(thread)
        | N::ThreadGoalCleared(thread)
        | N::ThreadDeleted(thread)
        | N::ThreadReverted(thread) => Some(&thread.thread_id),
        N::ThreadAttachmentUpdated(updated) => Some(&updated.thread_id),
        N::ThreadGoalUpdated(updated) => Some(&updated.thread_id),
        N::HookStarted(run) | N::HookCompleted(run) => Some(&run.thread_id),
        N::ThreadQueueChanged(changed) => Some(&changed.thread_id),
        N::ThreadSectionChanged(changed) => Some(&changed.thread_id),
        N::ThreadReadStateChanged(changed) => Some(&changed.thread_id),
        N::ThreadCompacted(compacted) => Some(&compacted.thread_id),
        N::CommandExecutionTerminalInteraction(interaction) => Some(&interaction.thread_id),
        N::ThreadSettingsUpdated(updated) => Some(&updated.thread_id),
        N::PlanDelta(delta) => Some(&delta.thread_id),
        N::FileChangePatchUpdated(updated) => Some(&updated.thread_id),
        N::McpToolCallProgress(progress) => Some(&progress.thread_id),
        N::ThreadNameUpdated(updated) => Some(&updated.thread_id),
        N::ThreadTokenUsageUpdated(usage) => Some(&usage.thread_id),
        N::TurnStarted(turn) | N::TurnCompleted(turn) => Some(&turn.thread_id),
        N::TurnDiffUpdated(diff) => Some(&diff.thread_id),
        N::TurnPlanUpdated(plan) => Some(&plan.thread_id),
        N::ItemStarted(item) => Some(&item.thread_id),
        N::ItemCompleted(item) => Some(&item.thread_id),
        N::AgentMessageDelta(delta)
        | N::CommandExecutionOutputDelta(delta)
        | N::FileChangeOutputDelta(delta) => Some(&delta.thread_id),
        N::ReasoningSummaryTextDelta(delta) => Some(&delta.thread_id),
        N::ReasoningSummaryPartAdded(part) => Some(&part.thread_id),
        N::ReasoningTextDelta(delta) => Some(&delta.thread_id),
        N::ServerRequestResolved(resolved) => Some(&resolved.thread_id),
        N::Error(error) => Some(&error.thread_id),
        N::Warning(warning) => warning.thread_id.as_deref(),
        N::McpServerStatusUpdated(status) => status.thread_id.as_deref(),
        // A Codex event is rendered per connection from the notifications above; the engine
        // does not emit one itself.
        N::CodexEvent(_)
        | N::ConfigWarning(_)
        | N::DeprecationNotice(_)
        | N::CommandExecOutputDelta(_)
        | N::ProcessOutputDelta(_)
        | N::ProcessExited(_)
        | N::FuzzyFileSearchSessionUpdated(_)
        | N::FsChanged(_)
        | N::IndexProgress(_)
        | N::AccountLoginCompleted(_)
        | N::AccountUpdated(_)
        | N::AccountRateLimitsUpdated(_)
        | N::LoginChatGptComplete(_)
        | N::AuthStatusChange(_)
        | N::SkillsChanged(_)
        | N::ExternalAgentConfigImportProgress(_)
        | N::ExternalAgentConfigImportCompleted(_) => None,
    }
}
