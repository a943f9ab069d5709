//! What the engine's in-process tests put behind its traits: a sink that records every
//! notification as the JSON a front end would send, and an approver for turns that ask nothing.

use std::future::Future;
use std::pin::Pin;

use app_server_protocol::tables::ServerNotification;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::engine::EventSink;
use crate::engine::approval::{ApprovalReply, ApprovalRequest, Approver};

/// Records every notification as its wire JSON.
pub(crate) struct RecordingSink(pub(crate) mpsc::Sender<Value>);

impl EventSink for RecordingSink {
    fn emit(
        &self,
        notification: ServerNotification,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            let message = serde_json::to_value(&notification).expect("notification JSON");
            let _ = self.0.send(message).await;
        })
    }
}

/// Withdraws every question: the turns of these tests ask none.
pub(crate) struct NoUser;

impl Approver for NoUser {
    fn request(
        &self,
        _request: ApprovalRequest,
        _cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = ApprovalReply> + Send + '_>> {
        Box::pin(async { ApprovalReply::Withdrawn })
    }
}
