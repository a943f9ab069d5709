//! Params and responses of `thread/queue/add` and `thread/queue/list`, and the
//! `thread/queue/changed` notification: inputs queued behind a thread's running turn.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::item::UserInput;

/// An input waiting for the thread's running turn to end; it then starts a turn of its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct QueuedSubmission {
    /// Id of the queued input (UUIDv7).
    pub id: String,
    /// The input of the turn it will start.
    pub input: Vec<UserInput>,
    /// The client's id for the user message, echoed as the message item's `clientId`.
    pub client_user_message_id: String,
    /// Metadata the client attached; kept and echoed, never sent to the provider.
    pub responsesapi_client_metadata: Option<BTreeMap<String, String>>,
}

/// Parameters of `thread/queue/add`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadQueueAddParams {
    /// The thread (loaded).
    pub thread_id: String,
    /// The input (at least one item).
    pub input: Vec<UserInput>,
    /// The client's id for the user message.
    pub client_user_message_id: String,
    /// Metadata kept with the input and echoed; never sent to the provider.
    #[serde(default)]
    pub responsesapi_client_metadata: Option<BTreeMap<String, String>>,
}

/// Result of `thread/queue/add`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadQueueAddResponse {
    /// The input as queued; on an idle thread it has already started its turn.
    pub queued_submission: QueuedSubmission,
}

/// Parameters of `thread/queue/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadQueueListParams {
    /// The thread (loaded).
    pub thread_id: String,
    /// The `nextCursor` of the previous page (an offset, as decimal digits).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size; `null` or `0` lists every queued input.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Result of `thread/queue/list`, in the order the inputs will start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadQueueListResponse {
    /// The queued inputs of this page.
    pub data: Vec<QueuedSubmission>,
    /// The cursor of the next page; `null` on the last one.
    pub next_cursor: Option<String>,
}

/// `thread/queue/changed`: a thread's queue changed (an input was added, or one left it to
/// start its turn); read it again with `thread/queue/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadQueueChangedNotification {
    /// The thread.
    pub thread_id: String,
}
