//! Read state of stored threads: `thread/readState/update`, the `thread/readState/changed`
//! notification, and the `readState` / `readStates` that `thread/read` and `thread/list`
//! carry. A thread's read state is its owner's first unread position plus an opaque revision
//! that every edit must name, so that a client never marks read a result it has not seen.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a thread's unread part begins (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ThreadUnreadPosition {
    /// The whole thread was marked unread (`thread/readState/update` with `unread`), also
    /// when it has no turns.
    ThreadStart,
    /// The earliest ended turn whose result the owner has not read.
    Turn {
        /// The turn.
        turn_id: String,
    },
}

/// A stored thread's read state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadReadState {
    /// The first unread position; `null` when everything is read.
    #[serde(default)]
    pub first_unread: Option<ThreadUnreadPosition>,
    /// Opaque revision, changed by every edit and by every newly ended turn that needs
    /// attention; `thread/readState/update` must name the revision its caller saw.
    pub revision: String,
}

/// What `thread/readState/update` does (tagged by `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ThreadReadStateOperation {
    /// Mark the whole thread read.
    Read,
    /// Mark the whole thread unread (`firstUnread` becomes `threadStart`).
    Unread,
}

/// Parameters of `thread/readState/update`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadReadStateUpdateParams {
    /// The thread (stored; an ephemeral thread has no read state).
    pub thread_id: String,
    /// The revision the caller last saw; another one is refused with the current state in
    /// the error's `data`.
    pub expected_revision: String,
    /// Read or unread.
    pub operation: ThreadReadStateOperation,
}

/// Result of `thread/readState/update`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadReadStateUpdateResponse {
    /// The read state after the edit.
    pub read_state: ThreadReadState,
}

/// `thread/readState/changed`: a thread's read state changed, by `thread/readState/update`
/// or because a turn ended with a result that needs the owner's attention.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadReadStateChangedNotification {
    /// The thread.
    pub thread_id: String,
    /// Its read state now.
    pub read_state: ThreadReadState,
}
