//! `thread/delete`: a thread leaves the engine, its rollout file and the thread index for good.
//!
//! As the reference does, a running turn is interrupted first and its end reported
//! (`turn/completed`), then the thread is unloaded (`thread/status/changed notLoaded`), and
//! only then are its files removed, so that the ending turn's last writes (its rollout lines,
//! its index row) cannot bring the thread back. The history index is the front end's: it
//! removes the thread's events once the engine is done (`tandem-history`'s
//! `HistoryBackend::delete_session`).

use std::time::Duration;

use app_server_protocol::notifications::ThreadStatusChangedNotification;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::ThreadStatus;

use crate::audit::AuditEvent;
use crate::engine::settings::no_rollout;
use crate::engine::{Engine, EngineError};
use crate::store::StoreError;
use crate::sync::lock;

/// How long `thread/delete` waits for an interrupted turn to end before it removes the
/// thread's files all the same (a turn whose tool call does not stop when cancelled).
pub const DELETE_TURN_WAIT: Duration = Duration::from_secs(5);

impl Engine {
    /// `thread/delete`: interrupts the thread's running turn and waits for its end, unloads
    /// the thread (emitting `thread/status/changed notLoaded`), then removes its rollout (live
    /// or archived) and its index row. Returns the normalized thread id. A thread of another
    /// principal, or none, fails as `no rollout found for thread id …`; a loaded thread that
    /// never ran a turn (and so has no rollout) is only unloaded.
    pub async fn delete_thread(&self, thread_id: &str) -> Result<String, EngineError> {
        let owned = self.owned_thread(thread_id, no_rollout).await?;
        let id = owned.id().to_owned();
        if let Some(thread) = owned.loaded() {
            let ended = {
                let state = lock(&thread.state);
                state.active.as_ref().map(|active| {
                    active.cancel.cancel();
                    active.ended.clone()
                })
            };
            if let Some(ended) = ended
                && tokio::time::timeout(DELETE_TURN_WAIT, ended.cancelled())
                    .await
                    .is_err()
            {
                tracing::warn!(thread_id = %id, "the interrupted turn did not end; deleting anyway");
            }
            if self.unload(&id) {
                self.emit(ServerNotification::ThreadStatusChanged(
                    ThreadStatusChangedNotification {
                        thread_id: id.clone(),
                        status: ThreadStatus::NotLoaded,
                    },
                ))
                .await;
            }
        }
        let deleting = id.clone();
        let deleted = self
            .inner
            .store
            .blocking(move |store| store.delete(&deleting))
            .await;
        match deleted {
            Ok(()) => {}
            // A loaded thread that never ran a turn has no rollout yet: unloading it was all.
            Err(StoreError::NotFound(_)) if owned.loaded().is_some() => {}
            Err(StoreError::NotFound(_)) => return Err(no_rollout(&id)),
            Err(error) => return Err(error.into()),
        }
        self.audit(&AuditEvent::ThreadDeleted {
            thread_id: id.clone(),
        });
        Ok(id)
    }
}
