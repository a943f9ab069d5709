//! Legacy: the first-generation conversation API (`newConversation`, `sendUserMessage`, …) on
//! `tandem mcp-server`, as Codex's own MCP server answered it: extra JSON-RPC methods next to
//! `tools/*` once the session is initialized.
//!
//! The handlers are the app-server's ([`ConversationApi`]); this file only decodes the params
//! with the app-server's method table, sends the [`Reply`] in MCP framing and keeps the MCP
//! session's thread ownership. A conversation's events go out as `codex/event` notifications
//! and its approvals as `execCommandApproval` / `applyPatchApproval` requests answered
//! `{decision}`, both unrelated to any request: on stdio they share the one stream, over HTTP
//! they go on the session's GET stream (the POST of `sendUserMessage` ends with its response,
//! before the turn starts).
//!
//! Single node only: with `--redis`, a conversation's next request may land on a node whose
//! engine does not hold the thread, so these methods answer an error there.

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::legacy::ReviewDecisionResponse;
use app_server_protocol::tables::{ClientRequestPayload, ServerNotification};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::compat::codex_events::notification_thread;
use crate::compat::conversations::review_answer;
use crate::compat::legacy_requests::Reply;
use crate::mcp::events::EVENT_METHOD;
use crate::mcp::output::{Outbound, Route};
use crate::mcp::protocol::notification;
use crate::mcp::session::{McpSession, SessionShared};
use crate::pending::Answer;
use crate::rpc_error::{self, invalid_request};
use tandem_core::engine::approval::{ApprovalReply, ApprovalRequest};
use tandem_core::engine::{TurnLauncher, normalize_thread_id};
use tandem_core::sync::lock;

/// What goes out after a conversation-API response: its `codex/event`s, then its turn.
pub struct FollowUp {
    messages: Vec<Value>,
    launcher: Option<TurnLauncher>,
}

impl FollowUp {
    /// Sends the events (unrelated to any request) and launches the turn.
    pub async fn run(self, outbound: &dyn Outbound) {
        for message in self.messages {
            outbound.send(Route::Standalone, message).await;
        }
        if let Some(launcher) = self.launcher {
            launcher.launch();
        }
    }
}

impl McpSession {
    /// Answers one conversation-API request; what follows the response is kept for
    /// [`McpSession::take_follow_up`].
    pub(crate) async fn conversation_request(
        &self,
        id: &RequestId,
        method: &str,
        params: Value,
    ) -> Result<Value, JsonRpcErrorBody> {
        if self.is_clustered() {
            return Err(invalid_request(format!(
                "{method} is not available on a distributed (--redis) server: a conversation lives in one node's engine; use the codex and codex-reply tools"
            )));
        }
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        let payload = match crate::compat::requests::gate_request(id.clone(), message, false) {
            Ok((_, payload)) => payload,
            Err((_, error)) => return Err(error),
        };
        let api = &self.conversation_api;
        let reply = match payload {
            ClientRequestPayload::NewConversation(params) => {
                let reply = api.new_conversation(params).await;
                if let Some(thread_id) = conversation_id(&reply) {
                    lock(&self.loaded).insert(thread_id.clone());
                    if let Err(owner) = self.owners.claim(&thread_id, &self.shared.session_id) {
                        tracing::error!(%thread_id, %owner, "new conversation already owned by another session");
                        return Err(rpc_error::internal_error("thread id collision"));
                    }
                }
                reply
            }
            ClientRequestPayload::SendUserMessage(params) => {
                api.send_user_message(id.clone(), params)
            }
            ClientRequestPayload::SendUserTurn(params) => api.send_user_turn(id.clone(), params),
            ClientRequestPayload::InterruptConversation(params) => {
                api.interrupt_conversation(params).await
            }
            ClientRequestPayload::ListConversations(params) => api.list_conversations(params).await,
            ClientRequestPayload::ResumeConversation(params) => {
                let thread_id = params
                    .conversation_id
                    .clone()
                    .or_else(|| {
                        params
                            .path
                            .as_deref()
                            .and_then(crate::compat::conversation_summary::thread_id_of_rollout)
                    })
                    .and_then(|thread_id| normalize_thread_id(&thread_id).ok());
                let session_id = &self.shared.session_id;
                if let Some(thread_id) = &thread_id
                    && self.owners.claim(thread_id, session_id).is_err()
                {
                    return Err(invalid_request(format!(
                        "conversation {thread_id} is loaded by another MCP session; continue it there, or wait until that session ends"
                    )));
                }
                let reply = api.resume_conversation(params).await;
                match (&reply.response, thread_id) {
                    (Ok(_), Some(thread_id)) => {
                        lock(&self.loaded).insert(thread_id);
                    }
                    (Err(_), Some(thread_id)) => self.owners.release(&thread_id, session_id),
                    (_, None) => {}
                }
                reply
            }
            ClientRequestPayload::ArchiveConversation(params) => {
                let thread_id = normalize_thread_id(&params.conversation_id).ok();
                let reply = api.archive_conversation(params).await;
                if reply.response.is_ok()
                    && let Some(thread_id) = thread_id
                {
                    lock(&self.loaded).remove(&thread_id);
                    self.owners.release(&thread_id, &self.shared.session_id);
                }
                reply
            }
            ClientRequestPayload::GetUserSavedConfig(_) => api.user_saved_config().await,
            ClientRequestPayload::SetDefaultModel(params) => api.set_default_model(params).await,
            ClientRequestPayload::GetUserAgent(_) => api.user_agent(),
            ClientRequestPayload::UserInfo(_) => api.user_info(),
            ClientRequestPayload::GetAuthStatus(params) => api.auth_status(&params),
            ClientRequestPayload::GetConversationSummary(params) => {
                api.conversation_summary(params).await
            }
            ClientRequestPayload::GitDiffToRemote(params) => api.git_diff_to_remote(params).await,
            ClientRequestPayload::ExecOneOffCommand(params) => {
                api.exec_one_off_command(params).await
            }
            // Only the methods of the families the session serves come here (the conversation API).
            _ => return Err(rpc_error::method_not_found(method)),
        };
        let Reply {
            response,
            notifications,
            launcher,
        } = reply;
        // The thread-API notifications (`thread/started`, …) have no MCP form; the Codex
        // events do.
        let messages = notifications
            .into_iter()
            .filter_map(|notification| match notification {
                ServerNotification::CodexEvent(params) => Some(event_message(&params)),
                _ => None,
            })
            .collect();
        if response.is_ok() {
            lock(&self.follow_ups).insert(id.clone(), FollowUp { messages, launcher });
        }
        response
    }
}

impl SessionShared {
    /// The `codex/event` messages for an engine event of a conversation thread (`None` for
    /// other threads). Called for every event so that `interruptConversation` sees the turn
    /// end.
    pub(crate) fn conversation_messages(
        &self,
        notification: &ServerNotification,
    ) -> Option<Vec<Value>> {
        let thread_id = notification_thread(notification)?;
        if !self.conversations.contains(thread_id) {
            return None;
        }
        let events = self.conversations.translate(notification);
        Some(events.iter().map(event_message).collect())
    }

    /// Asks a conversation's question as Codex did: an `exec_approval_request` /
    /// `apply_patch_approval_request` event, then an `execCommandApproval` /
    /// `applyPatchApproval` request answered `{decision}`. `None` when the question is not a
    /// conversation's (or has no legacy request), so that it is asked by elicitation.
    pub(crate) async fn ask_conversation(
        &self,
        request: &ApprovalRequest,
        cancel: &CancellationToken,
    ) -> Option<ApprovalReply> {
        let thread_id = request.thread_id();
        if !self.conversations.contains(thread_id) || lock(&self.calls).thread_busy(thread_id) {
            return None;
        }
        let payload = self.conversations.legacy_request(request)?;
        if let Some(event) = self.conversations.approval_event(request) {
            self.outbound
                .send(Route::Standalone, event_message(&event))
                .await;
        }
        let mut body = match serde_json::to_value(&payload) {
            Ok(body) => body,
            Err(error) => return Some(ApprovalReply::Failed(format!("internal error: {error}"))),
        };
        let params = body["params"].take();
        let method = payload.method();
        let (id, receiver) = self.send_request(Route::Standalone, method, params).await;
        let answer = self
            .pending
            .wait(&id, receiver, self.options.approval_timeout, cancel)
            .await;
        Some(match answer {
            Answer::Result(result) => {
                match serde_json::from_value::<ReviewDecisionResponse>(result) {
                    Ok(response) => {
                        ApprovalReply::Answered(review_answer(request, &response.decision))
                    }
                    Err(error) => ApprovalReply::Failed(format!(
                        "the client's answer to {method} could not be read: {error}"
                    )),
                }
            }
            Answer::Error(error) => ApprovalReply::Failed(
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the client refused the request")
                    .to_string(),
            ),
            Answer::Closed => ApprovalReply::Withdrawn,
            Answer::TimedOut => {
                self.withdraw(Route::Standalone, &id, "approval request timed out")
                    .await;
                ApprovalReply::Failed("approval request timed out".into())
            }
            Answer::Cancelled => {
                self.withdraw(Route::Standalone, &id, "the turn ended")
                    .await;
                ApprovalReply::Withdrawn
            }
        })
    }
}

/// The id of the conversation a successful `newConversation` reply created.
fn conversation_id(reply: &Reply) -> Option<String> {
    reply
        .response
        .as_ref()
        .ok()?
        .get("conversationId")?
        .as_str()
        .map(str::to_string)
}

/// One `codex/event` notification.
fn event_message(params: &app_server_protocol::codex_event::CodexEventNotification) -> Value {
    match serde_json::to_value(params) {
        Ok(params) => notification(EVENT_METHOD, params),
        Err(error) => {
            tracing::error!(%error, "codex event not serializable");
            notification(EVENT_METHOD, json!({}))
        }
    }
}
