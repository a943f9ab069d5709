//! Read state: `thread/readState/update`, the `readState` of `thread/read` and the
//! `readStates` of `thread/list`, and the `thread/readState/changed` a turn's end publishes
//! when its result needs the owner's attention.
//!
//! As the reference does, a turn needs attention when it failed, when it completed with a
//! final agent message that is not empty and does not ask not to notify
//! ([`DONT_NOTIFY_MARKER`]), or when it was interrupted after an agent message. Only stored
//! threads have a read state (the index keeps it per owner); ephemeral threads have none.

use std::collections::BTreeMap;

use app_server_protocol::item::ThreadItemDetails;
use app_server_protocol::thread::{Thread, Turn, TurnStatus};
use app_server_protocol::thread_read_state::{
    ThreadReadState, ThreadReadStateChangedNotification, ThreadReadStateOperation,
    ThreadReadStateUpdateParams,
};

use crate::engine::settings::not_loaded;
use crate::engine::{Engine, EngineError};
use crate::store::read_state::{ReadStateEdit, ReadStateUpdate};

/// A final message holding this asks that its result raise no attention.
pub const DONT_NOTIFY_MARKER: &str = "<decision>DONT_NOTIFY</decision>";

/// The longest `expectedRevision` accepted, in bytes: revisions are short.
pub const MAX_REVISION_BYTES: usize = 256;

/// What `thread/readState/update` did.
#[derive(Debug)]
pub enum ReadStateEdited {
    /// The edit was made: the new state, and the notification for the thread's subscribers.
    Applied(ThreadReadStateChangedNotification),
    /// The caller saw another revision than the current one; nothing changed. The current
    /// state, for the error's `data`.
    Conflict(ThreadReadState),
}

impl Engine {
    /// `thread/readState/update`, after the owner check. A thread of another principal gives
    /// the error a missing thread gives.
    pub async fn update_read_state(
        &self,
        params: ThreadReadStateUpdateParams,
    ) -> Result<ReadStateEdited, EngineError> {
        if params.expected_revision.len() > MAX_REVISION_BYTES {
            return Err(EngineError::InvalidRequest(format!(
                "expectedRevision must be at most {MAX_REVISION_BYTES} bytes"
            )));
        }
        let owned = self.owned_thread(&params.thread_id, not_loaded).await?;
        let thread_id = owned.id().to_owned();
        let owner = self.principal().clone();
        let edit = match params.operation {
            ThreadReadStateOperation::Read => ReadStateEdit::Read,
            ThreadReadStateOperation::Unread => ReadStateEdit::Unread,
        };
        let editing = thread_id.clone();
        let outcome = self
            .inner
            .store
            .blocking(move |store| {
                store.update_read_state(&owner, &editing, &params.expected_revision, edit)
            })
            .await?;
        match outcome {
            ReadStateUpdate::Applied(read_state) => {
                let changed = ThreadReadStateChangedNotification {
                    thread_id,
                    read_state,
                };
                Ok(ReadStateEdited::Applied(changed))
            }
            ReadStateUpdate::Conflict(current) => Ok(ReadStateEdited::Conflict(current)),
            ReadStateUpdate::Unavailable => Err(EngineError::InvalidRequest(
                "thread read state unavailable".into(),
            )),
        }
    }

    /// Sends `changed` to the subscribers of its thread.
    pub async fn announce_read_state(&self, changed: ThreadReadStateChangedNotification) {
        self.emit(app_server_protocol::tables::ServerNotification::ThreadReadStateChanged(changed))
            .await;
    }

    /// The read state of each of `threads` that is stored, by thread id.
    pub(super) async fn read_states_of(
        &self,
        threads: &[Thread],
    ) -> Result<BTreeMap<String, ThreadReadState>, EngineError> {
        let ids: Vec<String> = threads
            .iter()
            .filter(|thread| !thread.ephemeral)
            .map(|thread| thread.id.clone())
            .collect();
        if ids.is_empty() {
            return Ok(BTreeMap::new());
        }
        let owner = self.principal().clone();
        let states = self
            .inner
            .store
            .blocking(move |store| {
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                store.read_states(&owner, &ids)
            })
            .await?;
        Ok(states.into_iter().collect())
    }

    /// The read state of `thread`, when it is stored.
    pub async fn read_state_of(
        &self,
        thread: &Thread,
    ) -> Result<Option<ThreadReadState>, EngineError> {
        let mut states = self.read_states_of(std::slice::from_ref(thread)).await?;
        Ok(states.remove(&thread.id))
    }
}

/// Whether `turn`, just ended, has a result that needs its owner's attention.
pub(super) fn needs_attention(turn: &Turn) -> bool {
    let final_text = turn
        .items
        .iter()
        .rev()
        .find_map(|item| match &item.details {
            ThreadItemDetails::AgentMessage { text, .. } => Some(text.as_str()),
            _ => None,
        });
    match turn.status {
        TurnStatus::Failed => true,
        TurnStatus::Completed => final_text
            .is_some_and(|text| !text.trim().is_empty() && !text.contains(DONT_NOTIFY_MARKER)),
        TurnStatus::Interrupted => turn.error.is_some() || final_text.is_some(),
        TurnStatus::InProgress => false,
    }
}
