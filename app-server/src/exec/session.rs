//! The engine's side of `tandem exec`: where its notifications go and who answers its
//! questions.
//!
//! Nobody is there to answer: an approval the `approval_policy` asks for is declined (the
//! command's item ends `declined`), and a question or an MCP server's elicitation is refused,
//! as the reference does when it runs without a terminal. Notifications go through a bounded
//! channel to the output thread, which writes them; awaiting the channel is the engine's
//! backpressure.

use std::future::Future;
use std::pin::Pin;

use app_server_protocol::mcp_servers::{
    McpServerElicitationAction, McpServerElicitationRequestResponse,
};
use app_server_protocol::permissions::{
    GrantedPermissionProfile, PermissionGrantScope, PermissionsRequestApprovalResponse,
};
use app_server_protocol::server_requests::{
    CommandExecutionApprovalDecision, FileChangeApprovalDecision,
};
use app_server_protocol::tables::ServerNotification;
use tandem_core::engine::EventSink;
use tandem_core::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest, Approver};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::exec::output::ToOutput;

/// The engine's sink: every notification goes to the output thread.
pub struct ChannelSink {
    /// The output thread's queue.
    pub output: mpsc::Sender<ToOutput>,
}

impl EventSink for ChannelSink {
    fn emit(
        &self,
        notification: ServerNotification,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            // The output thread ends only after the turn; a send failing then loses nothing.
            let _ = self
                .output
                .send(ToOutput::Notification(Box::new(notification)))
                .await;
        })
    }
}

/// Declines every approval and refuses every question: `tandem exec` has no one to ask.
pub struct DecliningApprover;

impl Approver for DecliningApprover {
    fn request(
        &self,
        request: ApprovalRequest,
        _cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = ApprovalReply> + Send + '_>> {
        let reply = match request {
            ApprovalRequest::Command(_) => ApprovalReply::Answered(ApprovalAnswer::Command(
                CommandExecutionApprovalDecision::Decline,
            )),
            ApprovalRequest::FileChange(_) => ApprovalReply::Answered(ApprovalAnswer::FileChange(
                FileChangeApprovalDecision::Decline,
            )),
            ApprovalRequest::McpElicitation(_) => ApprovalReply::Answered(
                ApprovalAnswer::McpElicitation(McpServerElicitationRequestResponse {
                    action: McpServerElicitationAction::Decline,
                    content: None,
                    meta: None,
                }),
            ),
            ApprovalRequest::UserInput(_)
            | ApprovalRequest::FreeText(_)
            | ApprovalRequest::Choices(_) => ApprovalReply::Failed(
                "tandem exec runs without a user to answer questions".to_string(),
            ),
            ApprovalRequest::DynamicToolCall(_) => {
                ApprovalReply::Failed("tandem exec has no client to run the tool".to_string())
            }
            // Nobody grants anything.
            ApprovalRequest::Permissions(_) => ApprovalReply::Answered(
                ApprovalAnswer::Permissions(PermissionsRequestApprovalResponse {
                    permissions: GrantedPermissionProfile::default(),
                    scope: PermissionGrantScope::Turn,
                    strict_auto_review: None,
                }),
            ),
        };
        Box::pin(std::future::ready(reply))
    }
}
