//! `thread/delete`, `thread/revert` and `thread/goal/set|clear`, whose answers are followed
//! by a notification, and the goal notification that follows `thread/resume`.
//!
//! For `thread/delete` the engine removes the thread (its turn, its registration, its rollout
//! and its row in the thread index), then this front end removes its events from the history
//! index, answers, and sends `thread/deleted`.

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::notifications::ThreadIdNotification;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_goal::{
    ThreadGoalClearParams, ThreadGoalClearResponse, ThreadGoalSetParams, ThreadGoalSetResponse,
    ThreadGoalUpdatedNotification,
};
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

    /// `thread/goal/set`: the goal, then `thread/goal/updated`.
    pub(super) async fn thread_goal_set(&self, id: RequestId, params: ThreadGoalSetParams) {
        match self.engine.set_goal(params).await {
            Ok(goal) => {
                let thread_id = goal.thread_id.clone();
                self.outgoing
                    .send_response(id, &ThreadGoalSetResponse { goal: goal.clone() })
                    .await;
                self.notify(ServerNotification::ThreadGoalUpdated(
                    ThreadGoalUpdatedNotification {
                        thread_id,
                        turn_id: None,
                        goal,
                    },
                ))
                .await;
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }

    /// `thread/goal/clear`: whether there was a goal, then `thread/goal/cleared` if there was.
    pub(super) async fn thread_goal_clear(&self, id: RequestId, params: ThreadGoalClearParams) {
        let thread_id = tandem_core::engine::normalize_thread_id(&params.thread_id)
            .unwrap_or_else(|_| params.thread_id.clone());
        match self.engine.clear_goal(params).await {
            Ok(cleared) => {
                self.outgoing
                    .send_response(id, &ThreadGoalClearResponse { cleared })
                    .await;
                if cleared {
                    self.notify(ServerNotification::ThreadGoalCleared(
                        ThreadIdNotification { thread_id },
                    ))
                    .await;
                }
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }

    /// After `thread/resume`: `thread/goal/updated` with the thread's goal, or
    /// `thread/goal/cleared` when it has none.
    pub(super) async fn notify_resumed_goal(&self, thread_id: String) {
        let notification = match self.engine.loaded_goal(&thread_id) {
            Some(goal) => ServerNotification::ThreadGoalUpdated(ThreadGoalUpdatedNotification {
                thread_id,
                turn_id: None,
                goal,
            }),
            None => ServerNotification::ThreadGoalCleared(ThreadIdNotification { thread_id }),
        };
        self.notify(notification).await;
    }
}
