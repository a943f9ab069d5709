//! Params and responses of the methods that rewrite a thread's model context:
//! `thread/rollback` and `thread/compact/start`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::thread::Thread;

/// Parameters of `thread/rollback`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadRollbackParams {
    /// The thread; it must be loaded and idle.
    pub thread_id: String,
    /// How many turns to drop from the end; at least 1. More turns than the thread has drops
    /// them all.
    pub num_turns: u32,
}

/// Result of `thread/rollback`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadRollbackResponse {
    /// The thread after the rollback, with its remaining turns (`itemsView: full`). Files the
    /// dropped turns changed are not reverted.
    pub thread: Thread,
}

/// Parameters of `thread/compact/start`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadCompactStartParams {
    /// The thread to compact; it must be loaded and idle.
    pub thread_id: String,
}
