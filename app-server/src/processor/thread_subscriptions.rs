//! What a connection on a listener does beyond a stdio connection when it takes part in a
//! thread: subscribing to the thread's events (`processor/subscriptions.rs` routes them), and
//! `thread/unsubscribe`, which unloads the thread only with its last subscriber.

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_requests::ThreadUnsubscribeResponse;

use super::Processor;
use tandem_core::engine::EngineError;

impl Processor {
    /// Subscribes the connection to a thread's events (on a listener; a stdio connection
    /// receives every event of its engine).
    pub(super) fn subscribe(&self, thread_id: &str) {
        if let Some((hub, connection)) = &self.hub {
            let thread_id = tandem_core::engine::normalize_thread_id(thread_id)
                .unwrap_or_else(|_| thread_id.to_string());
            hub.subscribe(*connection, &thread_id);
        }
    }

    /// `turn/start`, subscribing the connection to the thread first so that it receives the
    /// turn's events from its first one, and sending `thread/settings/updated` (before the
    /// answer) when the turn's overrides changed the thread's settings.
    pub(super) async fn start_turn(
        &self,
        params: app_server_protocol::turn_requests::TurnStartParams,
    ) -> Result<
        (
            app_server_protocol::thread::Turn,
            Option<tandem_core::engine::TurnLauncher>,
        ),
        EngineError,
    > {
        let thread_id = params.thread_id.clone();
        let before = self.engine.next_turn_settings(&thread_id);
        let started = self.engine.start_turn(params);
        if started.is_ok() {
            self.subscribe(&thread_id);
            // As the reference does: overrides that changed the thread's settings are
            // announced before the answer.
            let after = self.engine.next_turn_settings(&thread_id);
            if let (Some(before), Some(after)) = (before, after)
                && before != after
            {
                self.notify(ServerNotification::ThreadSettingsUpdated(after))
                    .await;
            }
        }
        started
    }

    /// `thread/unsubscribe`: on a listener, the thread stays loaded while other connections
    /// are subscribed to it, and is unloaded with the last one.
    pub(super) async fn unsubscribe(&self, id: RequestId, thread_id: &str) {
        use app_server_protocol::thread_requests::ThreadUnsubscribeStatus;
        if let Some((hub, connection)) = &self.hub {
            let normalized = tandem_core::engine::normalize_thread_id(thread_id)
                .unwrap_or_else(|_| thread_id.to_string());
            if hub.other_subscribers(*connection, &normalized) > 0
                && self.engine.is_loaded(&normalized)
            {
                hub.unsubscribe(*connection, &normalized);
                let response = ThreadUnsubscribeResponse {
                    status: ThreadUnsubscribeStatus::Unsubscribed,
                };
                self.outgoing.send_response(id, &response).await;
                return;
            }
            let result = self
                .engine
                .unsubscribe(thread_id)
                .await
                .map(|status| ThreadUnsubscribeResponse { status });
            hub.unsubscribe(*connection, &normalized);
            self.respond(id, result).await;
            return;
        }
        let result = self
            .engine
            .unsubscribe(thread_id)
            .await
            .map(|status| ThreadUnsubscribeResponse { status });
        self.respond(id, result).await;
    }
}
