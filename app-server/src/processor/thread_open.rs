//! The methods that open, close and name a thread: `thread/start`, `thread/resume`,
//! `thread/fork`, `thread/archive`, `thread/unarchive` and `thread/name/set`, each answered and
//! then followed by its notification. Opening a thread subscribes this connection to it and
//! watches the skill roots its working directory brings.

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::notifications::{
    DeprecationNoticeNotification, ThreadIdNotification, ThreadNameUpdatedNotification,
    ThreadStartedNotification,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_requests::{
    EmptyResponse, ThreadForkParams, ThreadIdParams, ThreadResumeParams, ThreadSetNameParams,
    ThreadStartParams, ThreadUnarchiveResponse,
};

use crate::processor::Processor;

impl Processor {
    /// `thread/start`, then `thread/started`.
    pub(super) async fn thread_start(&self, id: RequestId, params: ThreadStartParams) {
        let result = self.engine.start_thread(params).await;
        if let Ok(response) = &result {
            let thread = response.thread.clone();
            let cwd = thread.cwd.clone();
            self.subscribe(&thread.id);
            self.watch_skill_roots(move |engine| engine.skill_roots(&cwd))
                .await;
            self.outgoing.send_response(id, response).await;
            self.notify(ServerNotification::ThreadStarted(
                ThreadStartedNotification { thread },
            ))
            .await;
        } else {
            self.respond(id, result).await;
        }
    }

    /// `thread/resume`: the connection is subscribed before the engine takes its snapshot and
    /// held until the answer is out, then receives the open questions and the usage so far.
    pub(super) async fn thread_resume(&self, id: RequestId, params: ThreadResumeParams) {
        let hub = self.hub.clone();
        let subscribe = move |thread_id: &str| {
            if let Some((hub, connection)) = &hub {
                hub.subscribe_paused(*connection, thread_id);
            }
        };
        match self
            .engine
            .resume_thread_subscribing(params, subscribe)
            .await
        {
            Ok((response, usage)) => {
                let thread_id = response.thread.id.clone();
                let cwd = response.thread.cwd.clone();
                self.watch_skill_roots(move |engine| engine.skill_roots(&cwd))
                    .await;
                self.outgoing.send_response(id, &response).await;
                if let Some((hub, connection)) = &self.hub {
                    hub.release(*connection, &thread_id).await;
                    hub.replay_open_questions(*connection, &thread_id).await;
                }
                self.replay_usage(&thread_id, usage).await;
                self.notify_resumed_goal(thread_id).await;
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }

    /// `thread/fork`, then `thread/started` with the new thread (without its copied turns).
    pub(super) async fn thread_fork(&self, id: RequestId, params: ThreadForkParams) {
        match self.engine.fork_thread(params).await {
            Ok((response, usage)) => {
                if !response.thread.turns.is_empty() {
                    self.notify(ServerNotification::DeprecationNotice(
                        DeprecationNoticeNotification {
                            summary: tandem_core::engine::RESUME_DEPRECATION.to_string(),
                            details: None,
                        },
                    ))
                    .await;
                }
                let thread = response.thread.clone();
                let cwd = thread.cwd.clone();
                self.subscribe(&thread.id);
                self.watch_skill_roots(move |engine| engine.skill_roots(&cwd))
                    .await;
                self.outgoing.send_response(id, &response).await;
                self.replay_usage(&thread.id, usage).await;
                let mut started = thread;
                started.turns.clear();
                self.notify(ServerNotification::ThreadStarted(
                    ThreadStartedNotification { thread: started },
                ))
                .await;
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }

    /// `thread/archive`, then `thread/archived`.
    pub(super) async fn thread_archive(&self, id: RequestId, params: ThreadIdParams) {
        let result = self.engine.archive_thread(&params.thread_id).await;
        if let Ok(()) = result {
            self.outgoing.send_response(id, &EmptyResponse {}).await;
            let thread_id = tandem_core::engine::normalize_thread_id(&params.thread_id)
                .unwrap_or(params.thread_id);
            self.notify(ServerNotification::ThreadArchived(ThreadIdNotification {
                thread_id,
            }))
            .await;
        } else {
            self.respond(id, result).await;
        }
    }

    /// `thread/unarchive`, then `thread/unarchived`.
    pub(super) async fn thread_unarchive(&self, id: RequestId, params: ThreadIdParams) {
        match self.engine.unarchive_thread(&params.thread_id).await {
            Ok(thread) => {
                let thread_id = thread.id.clone();
                self.outgoing
                    .send_response(id, &ThreadUnarchiveResponse { thread })
                    .await;
                self.notify(ServerNotification::ThreadUnarchived(ThreadIdNotification {
                    thread_id,
                }))
                .await;
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }

    /// `thread/name/set`, then `thread/name/updated`.
    pub(super) async fn thread_set_name(&self, id: RequestId, params: ThreadSetNameParams) {
        match self
            .engine
            .set_thread_name(&params.thread_id, &params.name)
            .await
        {
            Ok(thread_id) => {
                self.outgoing.send_response(id, &EmptyResponse {}).await;
                self.notify(ServerNotification::ThreadNameUpdated(
                    ThreadNameUpdatedNotification {
                        thread_id,
                        thread_name: Some(params.name.trim().to_string()),
                    },
                ))
                .await;
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }
}
