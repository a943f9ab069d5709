//! `thread/delete` and `thread/revert`, whose answers are followed by a notification.
//!
//! For `thread/delete` the engine removes the thread (its turn, its registration, its rollout
//! and its row in the thread index), then this front end removes its events from the history
//! index, answers, and sends `thread/deleted`.

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::notifications::ThreadIdNotification;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_lifecycle::ThreadRevertParams;
use app_server_protocol::thread_requests::{EmptyResponse, ThreadIdParams};

use crate::processor::Processor;

impl Processor {
    /// `thread/delete`. The history index is cleaned before the answer, so that no search sent
    /// after it finds the thread; an ingest queued by the thread's last turn is waited for
    /// first, so that it cannot add the events back. A history index that cannot be cleaned
    /// is logged: the thread itself is gone by then, and the answer says so.
    pub(super) async fn thread_delete(&self, id: RequestId, params: ThreadIdParams) {
        let thread_id = match self.engine.delete_thread(&params.thread_id).await {
            Ok(thread_id) => thread_id,
            Err(error) => {
                self.send_engine_error(id, error).await;
                return;
            }
        };
        if let Some(history) = self.history.clone() {
            let session = thread_id.clone();
            let removed = tokio::task::spawn_blocking(move || {
                history.wait_for_after_turn_ingests();
                history.service().delete_session(&session)
            })
            .await;
            match removed {
                Ok(Ok(events)) => tracing::debug!(%thread_id, events, "history entries deleted"),
                Ok(Err(error)) => {
                    tracing::warn!(%thread_id, "deleted thread's history entries stay: {error}")
                }
                Err(error) => {
                    tracing::warn!(%thread_id, "deleted thread's history entries stay: {error}")
                }
            }
        }
        self.outgoing.send_response(id, &EmptyResponse {}).await;
        self.notify(ServerNotification::ThreadDeleted(ThreadIdNotification {
            thread_id,
        }))
        .await;
    }

    /// `thread/revert`: the engine's answer, then `thread/reverted`.
    pub(super) async fn thread_revert(&self, id: RequestId, params: ThreadRevertParams) {
        match self.engine.revert_thread(params).await {
            Ok(response) => {
                let thread_id = response.thread.id.clone();
                self.outgoing.send_response(id, &response).await;
                self.notify(ServerNotification::ThreadReverted(ThreadIdNotification {
                    thread_id,
                }))
                .await;
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }
}
