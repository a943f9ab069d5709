//! `thread/attachment/add` and `thread/attachment/remove`: the engine's answer, then
//! `thread/attachment/updated` when the list changed. As the reference does, a request the
//! server cannot serve as asked (an unknown thread, an empty key) is `-32602`.

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_attachment::{
    ThreadAttachmentAddOutcome, ThreadAttachmentAddParams, ThreadAttachmentAddResponse,
    ThreadAttachmentOperation, ThreadAttachmentRemoveParams, ThreadAttachmentUpdatedNotification,
};
use app_server_protocol::thread_requests::EmptyResponse;
use tandem_core::engine::EngineError;

use crate::processor::Processor;
use crate::rpc_error::{internal_error, invalid_params};

impl Processor {
    /// `thread/attachment/add`.
    pub(super) async fn thread_attachment_add(
        &self,
        id: RequestId,
        params: ThreadAttachmentAddParams,
    ) {
        let thread_id = tandem_core::engine::normalize_thread_id(&params.thread_id)
            .unwrap_or_else(|_| params.thread_id.clone());
        match self.engine.add_attachment(params).await {
            Ok((outcome, attachment)) => {
                let notification = (outcome == ThreadAttachmentAddOutcome::Created).then(|| {
                    ThreadAttachmentUpdatedNotification {
                        thread_id,
                        attachment_type: attachment.attachment_type.clone(),
                        identity_key: attachment.identity_key.clone(),
                        attachment_id: attachment.id.clone(),
                        operation: ThreadAttachmentOperation::Created,
                    }
                });
                self.outgoing
                    .send_response(
                        id,
                        &ThreadAttachmentAddResponse {
                            outcome,
                            attachment,
                        },
                    )
                    .await;
                if let Some(notification) = notification {
                    self.notify(ServerNotification::ThreadAttachmentUpdated(notification))
                        .await;
                }
            }
            Err(error) => self.send_params_error(id, error).await,
        }
    }

    /// `thread/attachment/remove`.
    pub(super) async fn thread_attachment_remove(
        &self,
        id: RequestId,
        params: ThreadAttachmentRemoveParams,
    ) {
        let thread_id = tandem_core::engine::normalize_thread_id(&params.thread_id)
            .unwrap_or_else(|_| params.thread_id.clone());
        match self.engine.remove_attachment(params).await {
            Ok(removed) => {
                self.outgoing.send_response(id, &EmptyResponse {}).await;
                if let Some(attachment) = removed {
                    self.notify(ServerNotification::ThreadAttachmentUpdated(
                        ThreadAttachmentUpdatedNotification {
                            thread_id,
                            attachment_type: attachment.attachment_type,
                            identity_key: attachment.identity_key,
                            attachment_id: attachment.id,
                            operation: ThreadAttachmentOperation::Deleted,
                        },
                    ))
                    .await;
                }
            }
            Err(error) => self.send_params_error(id, error).await,
        }
    }

    pub(super) async fn send_params_error(&self, id: RequestId, error: EngineError) {
        let body = match &error {
            EngineError::InvalidRequest(message) => invalid_params(message),
            EngineError::Internal(message) => internal_error(message),
        };
        self.outgoing.send_error(id, body).await;
    }
}
