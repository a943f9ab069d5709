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
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::notifications::ServerRequestResolvedNotification;
use app_server_protocol::server_requests::{
    CommandExecutionRequestApprovalResponse, FileChangeRequestApprovalResponse,
    ToolRequestUserInputResponse,
};
use app_server_protocol::tables::{ServerNotification, ServerRequestPayload};
use tokio_util::sync::CancellationToken;

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest, Approver};
use crate::engine::{EventSink, lock};
use crate::outgoing::OutgoingSender;
use crate::pending::Answer;

/// How long a question may stay unanswered before it fails (the user may be away; a turn must
/// not hold its thread forever).
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// Server requests of one connection, and the `serverRequest/resolved` notifications that wait
/// for their turn to complete.
pub struct ClientApprover {
    outgoing: Arc<OutgoingSender>,
    /// Withdrawn requests by thread id, announced after that thread's next `turn/completed`.
    deferred: Mutex<HashMap<String, Vec<RequestId>>>,
}

impl ClientApprover {
    /// An approver asking through `outgoing`.
    pub fn new(outgoing: Arc<OutgoingSender>) -> Self {
        Self {
            outgoing,
            deferred: Mutex::new(HashMap::new()),
        }
    }

    async fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalReply {
        let thread_id = request.thread_id().to_string();
        let kind = AnswerKind::of(&request);
        let payload = match request {
            ApprovalRequest::Command(params) => {
                ServerRequestPayload::CommandExecutionRequestApproval(params)
            }
            ApprovalRequest::FileChange(params) => {
                ServerRequestPayload::FileChangeRequestApproval(params)
            }
            ApprovalRequest::UserInput(params) => {
                ServerRequestPayload::ToolRequestUserInput(params)
            }
            ApprovalRequest::McpElicitation(params) => {
                ServerRequestPayload::McpServerElicitationRequest(params)
            }
        };
        let (request_id, receiver) = self.outgoing.send_request(payload).await;
        let answer = self
            .outgoing
            .pending()
            .wait(&request_id, receiver, APPROVAL_TIMEOUT, &cancel)
            .await;
        let reply = match answer {
            Answer::Result(result) => decode_answer(kind, result),
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
            if let ServerNotification::TurnCompleted(completed) = &notification {
                let withdrawn = lock(&self.deferred).remove(&completed.thread_id);
                for request_id in withdrawn.into_iter().flatten() {
                    self.resolved(completed.thread_id.clone(), request_id).await;
                }
            }
        })
    }
}

/// Which response shape a pending request expects.
#[derive(Debug, Clone, Copy)]
enum AnswerKind {
    Command,
    FileChange,
    UserInput,
    McpElicitation,
}

impl AnswerKind {
    fn of(request: &ApprovalRequest) -> Self {
        match request {
            ApprovalRequest::Command(_) => AnswerKind::Command,
            ApprovalRequest::FileChange(_) => AnswerKind::FileChange,
            ApprovalRequest::UserInput(_) => AnswerKind::UserInput,
            ApprovalRequest::McpElicitation(_) => AnswerKind::McpElicitation,
        }
    }
}

/// Decodes the client's response body into the engine's typed answer. A body that does not
/// fit the request fails the question with the decoder's message.
fn decode_answer(kind: AnswerKind, result: serde_json::Value) -> ApprovalReply {
    let answer = match kind {
        AnswerKind::Command => {
            serde_json::from_value::<CommandExecutionRequestApprovalResponse>(result)
                .map(|response| ApprovalAnswer::Command(response.decision))
        }
        AnswerKind::FileChange => {
            serde_json::from_value::<FileChangeRequestApprovalResponse>(result)
                .map(|response| ApprovalAnswer::FileChange(response.decision))
        }
        AnswerKind::UserInput => serde_json::from_value::<ToolRequestUserInputResponse>(result)
            .map(ApprovalAnswer::UserInput),
        AnswerKind::McpElicitation => serde_json::from_value::<
            app_server_protocol::mcp_servers::McpServerElicitationRequestResponse,
        >(result)
        .map(ApprovalAnswer::McpElicitation),
    };
    match answer {
        Ok(answer) => ApprovalReply::Answered(answer),
        Err(error) => {
            tracing::warn!(%error, "undecodable answer to a server request");
            ApprovalReply::Failed(format!("the client's answer could not be read: {error}"))
        }
    }
}

/// The message of a JSON-RPC error object, or the whole object when it has none.
fn error_message(error: &serde_json::Value) -> String {
    match error.get("message").and_then(serde_json::Value::as_str) {
        Some(message) => message.to_string(),
        None => error.to_string(),
    }
}
