//! The stdio connection's [`Approver`]: each engine question becomes a server→client request
//! through the one [`OutgoingSender`], and each answer a `serverRequest/resolved`.
//!
//! Ordering follows the observed server: after a client's answer, `serverRequest/resolved`
//! goes out before the engine acts on it; when the turn is cancelled while a request is
//! pending, the entry is dropped at once (a late answer is ignored with a warning) and the
//! `serverRequest/resolved` follows the turn's `turn/completed`.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use app_server_protocol::dialogs::{
    AgentRequestUserInputResponse, QuestionAnswersResponse, RequestUserInputMethod,
    UserInputQuestion, UserInputRequestParams,
};
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::legacy::ReviewDecisionResponse;
use app_server_protocol::notifications::ServerRequestResolvedNotification;
use app_server_protocol::server_requests::{
    CommandExecutionRequestApprovalResponse, FileChangeRequestApprovalResponse,
    ToolRequestUserInputAnswer, ToolRequestUserInputParams, ToolRequestUserInputResponse,
};
use app_server_protocol::tables::{ServerNotification, ServerRequestPayload};
use tokio_util::sync::CancellationToken;

use crate::compat::conversations::{Conversations, review_answer};
use crate::outgoing::OutgoingSender;
use crate::pending::Answer;
use tandem_core::engine::EventSink;
use tandem_core::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest, Approver};
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

    /// Fixes the request that carries `request_user_input` questions on this connection;
    /// later calls are ignored.
    pub fn set_user_input_method(&self, method: RequestUserInputMethod) {
        let _ = self.user_input_method.set(method);
    }

    async fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalReply {
        let thread_id = request.thread_id().to_string();
        let method = self.user_input_method.get().copied().unwrap_or_default();
        let mut kind = AnswerKind::of(&request, method);
        let legacy = if self.conversations.contains(&thread_id) {
            self.conversations.legacy_request(&request)
        } else {
            None
        };
        let payload = match legacy {
            Some(payload) => {
                // Codex announces the question as an event, then asks with the legacy
                // request.
                if let Some(event) = self.conversations.approval_event(&request) {
                    self.outgoing
                        .send_notification(&ServerNotification::CodexEvent(event))
                        .await;
                }
                kind = AnswerKind::Review(Box::new(request));
                payload
            }
            None => v2_request(request, method),
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

/// The thread API's server request for a question; `method` picks the shape of
/// `request_user_input` questions.
fn v2_request(request: ApprovalRequest, method: RequestUserInputMethod) -> ServerRequestPayload {
    match request {
        ApprovalRequest::Command(params) => {
            ServerRequestPayload::CommandExecutionRequestApproval(params)
        }
        ApprovalRequest::FileChange(params) => {
            ServerRequestPayload::FileChangeRequestApproval(params)
        }
        ApprovalRequest::UserInput(params) => match method {
            RequestUserInputMethod::ItemToolRequestUserInput => {
                ServerRequestPayload::ToolRequestUserInput(params)
            }
            RequestUserInputMethod::ToolRequestUserInput => {
                ServerRequestPayload::UserInputRequest(indexed_questions(params))
            }
        },
        ApprovalRequest::FreeText(params) => ServerRequestPayload::AgentRequestUserInput(params),
        ApprovalRequest::Choices(params) => ServerRequestPayload::AgentAskUserQuestion(params),
        ApprovalRequest::McpElicitation(params) => {
            ServerRequestPayload::McpServerElicitationRequest(params)
        }
    }
}

/// Which response shape a pending request expects.
#[derive(Debug, Clone)]
enum AnswerKind {
    Command,
    FileChange,
    UserInput,
    /// A legacy `{decision: ReviewDecision}` answer to this question.
    Review(Box<ApprovalRequest>),
    /// `tool/requestUserInput`: answers by index, mapped back to these question ids.
    IndexedUserInput(Vec<String>),
    FreeText,
    Choices(usize),
    McpElicitation,
}

impl AnswerKind {
    fn of(request: &ApprovalRequest, method: RequestUserInputMethod) -> Self {
        match (request, method) {
            (ApprovalRequest::Command(_), _) => AnswerKind::Command,
            (ApprovalRequest::FileChange(_), _) => AnswerKind::FileChange,
            (ApprovalRequest::UserInput(_), RequestUserInputMethod::ItemToolRequestUserInput) => {
                AnswerKind::UserInput
            }
            (ApprovalRequest::UserInput(params), RequestUserInputMethod::ToolRequestUserInput) => {
                AnswerKind::IndexedUserInput(
                    params
                        .questions
                        .iter()
                        .map(|question| question.id.clone())
                        .collect(),
                )
            }
            (ApprovalRequest::FreeText(_), _) => AnswerKind::FreeText,
            (ApprovalRequest::Choices(params), _) => AnswerKind::Choices(params.questions.len()),
            (ApprovalRequest::McpElicitation(_), _) => AnswerKind::McpElicitation,
        }
    }
}

/// The `tool/requestUserInput` shape of the model's `request_user_input` questions.
fn indexed_questions(params: ToolRequestUserInputParams) -> UserInputRequestParams {
    UserInputRequestParams {
        thread_id: params.thread_id,
        turn_id: params.turn_id,
        tool_call_id: params.item_id,
        questions: params
            .questions
            .into_iter()
            .map(|question| UserInputQuestion {
                text: question.question,
                options: question
                    .options
                    .unwrap_or_default()
                    .into_iter()
                    .map(|option| option.label)
                    .collect(),
                is_other: question.is_other,
            })
            .collect(),
    }
}

/// Checks that every answer names a question of the request.
fn check_indexes(response: &QuestionAnswersResponse, count: usize) -> Result<(), String> {
    match response
        .answers
        .iter()
        .find(|answer| answer.question_index >= count)
    {
        Some(answer) => Err(format!(
            "the client answered question {} but only {count} were asked",
            answer.question_index
        )),
        None => Ok(()),
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
        AnswerKind::Review(request) => serde_json::from_value::<ReviewDecisionResponse>(result)
            .map(|response| review_answer(&request, &response.decision)),
        AnswerKind::IndexedUserInput(ids) => {
            let response = match serde_json::from_value::<QuestionAnswersResponse>(result) {
                Ok(response) => response,
                Err(error) => return undecodable(&error),
            };
            if let Err(message) = check_indexes(&response, ids.len()) {
                return ApprovalReply::Failed(message);
            }
            let answers: BTreeMap<String, ToolRequestUserInputAnswer> = response
                .answers
                .into_iter()
                .filter_map(|answer| {
                    let id = ids.get(answer.question_index)?.clone();
                    Some((
                        id,
                        ToolRequestUserInputAnswer {
                            answers: answer.selected,
                        },
                    ))
                })
                .collect();
            Ok(ApprovalAnswer::UserInput(ToolRequestUserInputResponse {
                answers,
            }))
        }
        AnswerKind::FreeText => serde_json::from_value::<AgentRequestUserInputResponse>(result)
            .map(|response| ApprovalAnswer::FreeText(response.user_input)),
        AnswerKind::Choices(count) => {
            let response = match serde_json::from_value::<QuestionAnswersResponse>(result) {
                Ok(response) => response,
                Err(error) => return undecodable(&error),
            };
            if let Err(message) = check_indexes(&response, count) {
                return ApprovalReply::Failed(message);
            }
            Ok(ApprovalAnswer::Choices(response))
        }
        AnswerKind::McpElicitation => serde_json::from_value::<
            app_server_protocol::mcp_servers::McpServerElicitationRequestResponse,
        >(result)
        .map(ApprovalAnswer::McpElicitation),
    };
    match answer {
        Ok(answer) => ApprovalReply::Answered(answer),
        Err(error) => undecodable(&error),
    }
}

fn undecodable(error: &serde_json::Error) -> ApprovalReply {
    tracing::warn!(%error, "undecodable answer to a server request");
    ApprovalReply::Failed(format!("the client's answer could not be read: {error}"))
}

/// The message of a JSON-RPC error object, or the whole object when it has none.
fn error_message(error: &serde_json::Value) -> String {
    match error.get("message").and_then(serde_json::Value::as_str) {
        Some(message) => message.to_string(),
        None => error.to_string(),
    }
}
