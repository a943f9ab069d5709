//! The stdio connection's [`Approver`]: each engine question becomes a server→client request
//! through the one [`OutgoingSender`], and each answer a `serverRequest/resolved`.
//!
//! Ordering follows the observed server: after a client's answer, `serverRequest/resolved`
//! goes out before the engine acts on it; when the turn is cancelled while a request is
//! pending, the entry is dropped at once (a late answer is ignored with a warning) and the
//! `serverRequest/resolved` follows the turn's `turn/completed`.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use app_server_protocol::dialogs::RequestUserInputMethod;
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::legacy::ReviewDecisionResponse;
use app_server_protocol::notifications::ServerRequestResolvedNotification;
use app_server_protocol::tables::ServerNotification;
use tokio_util::sync::CancellationToken;

use crate::compat::conversations::{Conversations, review_answer};
use crate::outgoing::OutgoingSender;
use crate::pending::Answer;
use tandem_core::engine::EventSink;
use tandem_core::engine::approval::{ApprovalReply, ApprovalRequest, Approver};
use tandem_core::engine::server_requests::{ExpectedAnswer, to_server_request};
use tandem_core::sync::lock;

/// How long a question may stay unanswered before it fails (the user may be away; a turn must
/// not hold its thread forever).
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// Server requests of one connection, and the `serverRequest/resolved` notifications that wait
/// for their turn to complete.
pub struct ClientApprover {
    outgoing: Arc<OutgoingSender>,
    /// Withdrawn requests by thread id, announced after that thread's next `turn/completed`.
    deferred: Mutex<HashMap<String, Vec<RequestId>>>,
    /// Threads opened with the first-generation conversation API.
    conversations: Arc<Conversations>,
    /// Which request carries `request_user_input` questions (fixed at `initialize`).
    user_input_method: OnceLock<RequestUserInputMethod>,
}

impl ClientApprover {
    /// An approver asking through `outgoing`.
    pub fn new(outgoing: Arc<OutgoingSender>) -> Self {
        Self {
            outgoing,
            deferred: Mutex::new(HashMap::new()),
            conversations: Arc::new(Conversations::default()),
            user_input_method: OnceLock::new(),
        }
    }

    /// The connection's conversations (threads opened with the first-generation API).
    pub fn conversations(&self) -> Arc<Conversations> {
        self.conversations.clone()
    }

    /// The sender of the connection this approver asks through.
    pub fn outgoing(&self) -> &Arc<OutgoingSender> {
        &self.outgoing
    }

    /// The request that carries `request_user_input` questions on this connection.
    pub fn user_input_method(&self) -> RequestUserInputMethod {
        self.user_input_method.get().copied().unwrap_or_default()
    }

    /// Whether `thread_id` is a first-generation conversation of this connection.
    pub fn has_conversation(&self, thread_id: &str) -> bool {
        self.conversations.contains(thread_id)
    }

    /// Fixes the request that carries `request_user_input` questions on this connection;
    /// later calls are ignored.
    pub fn set_user_input_method(&self, method: RequestUserInputMethod) {
        let _ = self.user_input_method.set(method);
    }

    async fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalReply {
        let thread_id = request.thread_id().to_string();
        let method = self.user_input_method.get().copied().unwrap_or_default();
        let legacy = if self.conversations.contains(&thread_id) {
            self.conversations.legacy_request(&request)
        } else {
            None
        };
        let (payload, expect) = match legacy {
            Some(payload) => {
                // Codex announces the question as an event, then asks with the legacy
                // request.
                if let Some(event) = self.conversations.approval_event(&request) {
                    self.outgoing
                        .send_notification(&ServerNotification::CodexEvent(event))
                        .await;
                }
                (payload, Expect::Review(Box::new(request)))
            }
            None => {
                let rendered = to_server_request(request, method);
                (rendered.payload, Expect::ThreadApi(rendered.expects))
            }
        };
        let (request_id, receiver) = self.outgoing.send_request(payload).await;
        let answer = self
            .outgoing
            .pending()
            .wait(&request_id, receiver, APPROVAL_TIMEOUT, &cancel)
            .await;
        let reply = match answer {
            Answer::Result(result) => expect.decode(result),
            Answer::Error(error) => ApprovalReply::Failed(error_message(&error)),
            Answer::TimedOut => ApprovalReply::Failed("approval request timed out".into()),
            // The entry was dropped: the connection is closing.
            Answer::Closed => return ApprovalReply::Withdrawn,
            Answer::Cancelled => {
                lock(&self.deferred)
                    .entry(thread_id)
                    .or_default()
                    .push(request_id);
                return ApprovalReply::Withdrawn;
            }
        };
        self.resolved(thread_id, request_id).await;
        reply
    }

    async fn resolved(&self, thread_id: String, request_id: RequestId) {
        self.outgoing
            .send_notification(&ServerNotification::ServerRequestResolved(
                ServerRequestResolvedNotification {
                    thread_id,
                    request_id,
                },
            ))
            .await;
    }
}

impl Approver for ClientApprover {
    fn request(
        &self,
        request: ApprovalRequest,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = ApprovalReply> + Send + '_>> {
        Box::pin(self.ask(request, cancel))
    }
}

/// The connection's notification sink: notifications go out as they come, and a
/// `turn/completed` releases the `serverRequest/resolved` of requests its turn withdrew.
impl EventSink for ClientApprover {
    fn emit(
        &self,
        notification: ServerNotification,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            self.outgoing.send_notification(&notification).await;
            // Conversations also get their events as Codex events.
            for event in self.conversations.translate(&notification) {
                self.outgoing
                    .send_notification(&ServerNotification::CodexEvent(event))
                    .await;
            }
            if let ServerNotification::TurnCompleted(completed) = &notification {
                let withdrawn = lock(&self.deferred).remove(&completed.thread_id);
                for request_id in withdrawn.into_iter().flatten() {
                    self.resolved(completed.thread_id.clone(), request_id).await;
                }
            }
        })
    }
}

/// How to read the client's answer: the thread API's shape, or the legacy
/// `{decision: ReviewDecision}` of a first-generation conversation's request.
#[derive(Debug)]
enum Expect {
    ThreadApi(ExpectedAnswer),
    Review(Box<ApprovalRequest>),
}

impl Expect {
    fn decode(self, result: serde_json::Value) -> ApprovalReply {
        match self {
            Expect::ThreadApi(expected) => expected.decode(result),
            Expect::Review(request) => {
                match serde_json::from_value::<ReviewDecisionResponse>(result) {
                    Ok(response) => {
                        ApprovalReply::Answered(review_answer(&request, &response.decision))
                    }
                    Err(error) => {
                        tracing::warn!(%error, "undecodable answer to a server request");
                        ApprovalReply::Failed(format!(
                            "the client's answer could not be read: {error}"
                        ))
                    }
                }
            }
        }
    }
}

/// The message of a JSON-RPC error object, or the whole object when it has none.
pub(super) fn error_message(error: &serde_json::Value) -> String {
    match error.get("message").and_then(serde_json::Value::as_str) {
        Some(message) => message.to_string(),
        None => error.to_string(),
    }
}
