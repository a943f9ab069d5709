//! Read state in the index: for each stored thread, its owner's first unread turn and an
//! opaque revision (`thread/readState/update`, `thread/readState/changed`, the `readState` of
//! `thread/read` and `thread/list`).
//!
//! A thread with no `read_states` row is read, at the revision `initial:<id>`: listing
//! threads writes nothing, and that revision names one thread, so that it cannot edit
//! another. Every edit compares the revision its caller saw and writes a new one. A turn that
//! ends with a result needing attention is published once ([`Store::publish_attention`]): the
//! first unread turn stays the earliest one, the revision changes, and the turn is remembered
//! so that the same end is never published twice. The rows, like the section rows, exist
//! only here: a rebuild from the rollouts starts with every thread read.

use std::collections::HashMap;

use app_server_protocol::thread_read_state::{ThreadReadState, ThreadUnreadPosition};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::principal::Principal;
use crate::store::StoreError;
use crate::store::index::Store;

/// The read-state table, keyed by thread and owner. `first_unread_turn` is `NULL` when the
/// thread is read and `''` when the whole thread was marked unread.
pub(super) const READ_STATES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS read_states (
    thread_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    first_unread_turn TEXT,
    revision TEXT NOT NULL,
    last_published_turn TEXT,
    PRIMARY KEY (thread_id, owner)
);
";

/// What `thread/readState/update` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStateEdit {
    /// Everything read.
    Read,
    /// The whole thread unread.
    Unread,
}

/// The outcome of an edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadStateUpdate {
    /// The edit was made; the new state.
    Applied(ThreadReadState),
    /// The caller named another revision than the current one; nothing changed. The current
    /// state.
    Conflict(ThreadReadState),
    /// The owner has no stored thread with that id.
    Unavailable,
}

impl Store {
    /// The read state of each of `thread_ids` that `owner` has a stored thread for.
    pub fn read_states(
        &self,
        owner: &Principal,
        thread_ids: &[&str],
    ) -> Result<HashMap<String, ThreadReadState>, StoreError> {
        let connection = self.connection()?;
        Ok(states_of(&connection, owner, thread_ids)?)
    }

    /// Publishes that turn `turn_id` of `owner`'s thread `thread_id` ended with a result that
    /// needs attention: the thread becomes unread from its earliest unread turn, under a new
    /// revision. Returns the new state, or `None` when nothing changed (the thread is not
    /// stored, or this turn was published already).
    pub fn publish_attention(
        &self,
        owner: &Principal,
        thread_id: &str,
        turn_id: &str,
    ) -> Result<Option<ThreadReadState>, StoreError> {
        let connection = self.connection()?;
        let changed = connection
            .prepare_cached(
                "INSERT INTO read_states
                     (thread_id, owner, first_unread_turn, revision, last_published_turn)
                 SELECT id, owner, ?3, ?4, ?3 FROM threads WHERE id = ?1 AND owner = ?2
                 ON CONFLICT (thread_id, owner) DO UPDATE SET
                     first_unread_turn =
                         COALESCE(read_states.first_unread_turn, excluded.first_unread_turn),
                     revision = excluded.revision,
                     last_published_turn = excluded.last_published_turn
                 WHERE read_states.last_published_turn IS NOT excluded.last_published_turn",
            )?
            .execute(params![thread_id, owner.name(), turn_id, new_revision()])?;
        if changed == 0 {
            return Ok(None);
        }
        Ok(states_of(&connection, owner, &[thread_id])?.remove(thread_id))
    }

    /// Marks `owner`'s thread `thread_id` read or unread when `expected_revision` is its
    /// current revision, in one transaction.
    pub fn update_read_state(
        &self,
        owner: &Principal,
        thread_id: &str,
        expected_revision: &str,
        edit: ReadStateEdit,
    ) -> Result<ReadStateUpdate, StoreError> {
        let connection = self.connection()?;
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)?;
        let Some(before) = states_of(&transaction, owner, &[thread_id])?.remove(thread_id) else {
            return Ok(ReadStateUpdate::Unavailable);
        };
        if before.revision != expected_revision {
            return Ok(ReadStateUpdate::Conflict(before));
        }
        let first_unread = match edit {
            ReadStateEdit::Read => None,
            ReadStateEdit::Unread => Some(""),
        };
        let revision = new_revision();
        transaction
            .prepare_cached(
                "INSERT INTO read_states (thread_id, owner, first_unread_turn, revision)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (thread_id, owner) DO UPDATE SET
                     first_unread_turn = excluded.first_unread_turn,
                     revision = excluded.revision",
            )?
            .execute(params![thread_id, owner.name(), first_unread, revision])?;
        transaction.commit()?;
        Ok(ReadStateUpdate::Applied(ThreadReadState {
            first_unread: first_unread.map(unread_position),
            revision,
        }))
    }
}

/// Forgets the read state of thread `id` (it is being deleted).
pub(super) fn forget_thread(connection: &Connection, id: &str) -> Result<(), rusqlite::Error> {
    connection
        .prepare_cached("DELETE FROM read_states WHERE thread_id = ?1")?
        .execute([id])?;
    Ok(())
}

/// The read states of those of `thread_ids` that `owner` has a stored thread for.
fn states_of(
    connection: &Connection,
    owner: &Principal,
    thread_ids: &[&str],
) -> Result<HashMap<String, ThreadReadState>, rusqlite::Error> {
    let mut statement = connection.prepare_cached(
        "SELECT t.id, r.first_unread_turn, r.revision FROM threads t
         LEFT JOIN read_states r ON r.thread_id = t.id AND r.owner = t.owner
         WHERE t.id = ?1 AND t.owner = ?2",
    )?;
    let mut states = HashMap::new();
    for thread_id in thread_ids {
        let row = statement
            .query_row(params![thread_id, owner.name()], |row| {
                let id: String = row.get(0)?;
                let first_unread: Option<String> = row.get(1)?;
                let revision: Option<String> = row.get(2)?;
                Ok((id, first_unread, revision))
            })
            .optional()?;
        if let Some((id, first_unread, revision)) = row {
            let revision = revision.unwrap_or_else(|| format!("initial:{id}"));
            let first_unread = first_unread.as_deref().map(unread_position);
            states.insert(
                id,
                ThreadReadState {
                    first_unread,
                    revision,
                },
            );
        }
    }
    Ok(states)
}

/// The wire form of a stored first unread turn (`''`: the whole thread).
fn unread_position(turn_id: &str) -> ThreadUnreadPosition {
    if turn_id.is_empty() {
        ThreadUnreadPosition::ThreadStart
    } else {
        ThreadUnreadPosition::Turn {
            turn_id: turn_id.to_owned(),
        }
    }
}

/// A fresh opaque revision.
fn new_revision() -> String {
    uuid::Uuid::now_v7().to_string()
}
