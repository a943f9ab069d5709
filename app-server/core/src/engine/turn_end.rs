//! How a turn ends, and what ends it when its task panics.
//!
//! A turn task owns the thread's active turn: until it records the end, every `turn/start`
//! on the thread joins the running turn. If the task died without recording the end (a panic
//! in a provider, a tool or persistence), the thread would be stuck with a dead turn that
//! swallows all later input. [`run_guarded`] therefore runs the task under `catch_unwind` and,
//! if it panics, ends the turn `failed` with an `error` notification and `turn/completed`
//! from the copy of the turn's identity kept in a [`TurnEnd`].

use std::any::Any;
use std::sync::Arc;

use app_server_protocol::item::ThreadItem;
use app_server_protocol::notifications::{
    ErrorNotification, ThreadStatusChangedNotification, TurnNotification,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{ThreadStatus, Turn, TurnError, TurnItemsView, TurnStatus};
use app_server_protocol::thread_read_state::ThreadReadStateChangedNotification;
use futures::FutureExt;

use crate::clock::{unix_millis, unix_seconds};
use crate::engine::EngineInner;
use crate::engine::thread::LoadedThread;
use crate::engine::turn::TurnTask;
use crate::store::{RolloutRecord, RolloutSync};
use crate::sync::lock;

/// The identity of a running turn: enough to record and announce its end.
#[derive(Clone)]
pub(super) struct TurnEnd {
    pub engine: Arc<EngineInner>,
    pub thread: Arc<LoadedThread>,
    pub turn_id: String,
    pub started_at: i64,
    pub started_at_ms: i64,
}

/// Runs `task` to its end; a panic inside it ends the turn `failed` instead of stranding
/// the thread.
pub(super) async fn run_guarded(task: TurnTask) {
    let end = task.end();
    let outcome = std::panic::AssertUnwindSafe(task.run())
        .catch_unwind()
        .await;
    let Err(panic) = outcome else {
        return;
    };
    let reason = panic_reason(panic.as_ref());
    tracing::error!(
        thread_id = %end.thread.id,
        turn_id = %end.turn_id,
        reason,
        "turn task panicked; ending the turn as failed"
    );
    // Commands the turn left running have lost their owner.
    end.thread.tools.unified.terminate_all();
    lock(&end.thread.tools.open_commands).clear();
    end.fail(TurnError {
        message: format!("internal error: {reason}"),
        codex_error_info: None,
        additional_details: None,
        misalignment: None,
    })
    .await;
}

impl TurnEnd {
    /// The turn as the wire shows it.
    pub fn snapshot(
        &self,
        status: TurnStatus,
        items: Vec<ThreadItem>,
        items_view: TurnItemsView,
        error: Option<TurnError>,
        completed_at: Option<i64>,
    ) -> Turn {
        Turn {
            id: self.turn_id.clone(),
            root_turn_id: Some(self.turn_id.clone()),
            items,
            items_view,
            status,
            error,
            started_at: Some(self.started_at),
            completed_at,
            duration_ms: completed_at.map(|_| unix_millis() - self.started_at_ms),
        }
    }

    /// Ends a failed turn: status `systemError`, `error`, then `turn/completed`. Does nothing
    /// when the turn has already ended (a panic after its end was recorded).
    pub async fn fail(&self, error: TurnError) {
        let completed_at = unix_seconds();
        let duration_ms = unix_millis() - self.started_at_ms;
        let full = self.snapshot(
            TurnStatus::Failed,
            Vec::new(),
            TurnItemsView::Full,
            Some(error.clone()),
            Some(completed_at),
        );
        let closed = self
            .close(
                full,
                ThreadStatus::SystemError,
                Some(error.clone()),
                completed_at,
                duration_ms,
            )
            .await;
        if !closed {
            return;
        }
        self.emit(ServerNotification::ThreadStatusChanged(
            ThreadStatusChangedNotification {
                thread_id: self.thread.id.clone(),
                status: ThreadStatus::SystemError,
            },
        ))
        .await;
        self.emit(ServerNotification::Error(ErrorNotification {
            error: error.clone(),
            will_retry: false,
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
        }))
        .await;
        let reported = self.snapshot(
            TurnStatus::Failed,
            Vec::new(),
            TurnItemsView::NotLoaded,
            Some(error),
            Some(completed_at),
        );
        self.emit(ServerNotification::TurnCompleted(TurnNotification {
            thread_id: self.thread.id.clone(),
            turn: reported,
        }))
        .await;
    }

    /// Records the end of the turn and frees the thread for the next one, then makes the
    /// rollout durable and refreshes the index row off the async workers (never holding the
    /// thread's lock while the disk works), and publishes a result that needs the owner's
    /// attention (`thread/readState/changed`). Returns `false`, changing nothing, when this turn
    /// is no longer the thread's active turn.
    pub async fn close(
        &self,
        turn: Turn,
        status: ThreadStatus,
        error: Option<TurnError>,
        completed_at: i64,
        duration_ms: i64,
    ) -> bool {
        let attention = crate::engine::read_state::needs_attention(&turn);
        let (sync, meta) = {
            let mut state = lock(&self.thread.state);
            if state.active.as_ref().map(|active| active.id.as_str()) != Some(&self.turn_id) {
                return false;
            }
            state.record(&RolloutRecord::TurnCompleted {
                turn_id: self.turn_id.clone(),
                status: turn.status,
                error,
                completed_at,
                duration_ms,
            });
            let sync = state.writer.as_ref().map(|writer| writer.sync_handle());
            state.turns.push(turn);
            state.status = status;
            state.active = None;
            state.meta.updated_at_ms = unix_millis();
            (sync, (state.writer.is_some()).then(|| state.meta.clone()))
        };
        let store = self.engine.store.clone();
        let thread_id = self.thread.id.clone();
        let owner = self.thread.owner.clone();
        let turn_id = self.turn_id.clone();
        let persisted = tokio::task::spawn_blocking(move || {
            if let Some(Err(error)) = sync.map(RolloutSync::sync) {
                tracing::error!(%thread_id, %error, "cannot fsync rollout");
            }
            let meta = meta?;
            if let Err(error) = store.update_meta(&meta) {
                tracing::error!(%thread_id, %error, "cannot update thread index");
                return None;
            }
            // Published once the result is durable, as the reference does.
            if !attention {
                return None;
            }
            match store.publish_attention(&owner, &thread_id, &turn_id) {
                Ok(changed) => changed,
                Err(error) => {
                    tracing::warn!(%thread_id, %error, "cannot record the thread's unread result");
                    None
                }
            }
        })
        .await;
        match persisted {
            Ok(Some(read_state)) => {
                self.emit(ServerNotification::ThreadReadStateChanged(
                    ThreadReadStateChangedNotification {
                        thread_id: self.thread.id.clone(),
                        read_state,
                    },
                ))
                .await;
            }
            Ok(None) => {}
            Err(error) => {
                tracing::error!(thread_id = %self.thread.id, %error, "turn-end persistence failed");
            }
        }
        true
    }

    async fn emit(&self, notification: ServerNotification) {
        self.engine.sink.emit(notification).await;
    }
}

/// The message of a panic payload (`panic!` with a literal or a formatted string).
fn panic_reason(panic: &(dyn Any + Send)) -> String {
    if let Some(message) = panic.downcast_ref::<&str>() {
        return (*message).to_string();
    }
    if let Some(message) = panic.downcast_ref::<String>() {
        return message.clone();
    }
    "the turn task panicked".to_string()
}
