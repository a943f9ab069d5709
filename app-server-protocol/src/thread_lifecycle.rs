//! Params and results of the thread methods that change a stored thread's metadata or history:
//! `thread/metadata/update`, `thread/inject_items` and `thread/revert`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::config_requests::double_option;
use crate::thread::Thread;

/// Parameters of `thread/metadata/update`. At least one of `gitInfo`, `projectId` and
/// `daybreakEnabled` must be given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadMetadataUpdateParams {
    /// The thread (loaded or stored).
    pub thread_id: String,
    /// Patch of the stored Git metadata: a field left out is unchanged, `null` clears it, a
    /// non-empty string replaces it.
    #[serde(default)]
    pub git_info: Option<ThreadMetadataGitInfoUpdateParams>,
    /// The project: left out or `null` leaves it unchanged, an empty string clears it.
    /// Tandem keeps no projects, so any other value is refused as a project not found.
    #[serde(default)]
    pub project_id: Option<String>,
    /// The client's Daybreak choice for this thread, stored and reported back; `null` or left
    /// out leaves it unchanged. It grants nothing.
    #[serde(default)]
    pub daybreak_enabled: Option<bool>,
}

/// A patch of a thread's Git metadata (`thread/metadata/update`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadMetadataGitInfoUpdateParams {
    /// The commit: left out keeps it, `null` clears it, a non-empty string replaces it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[ts(optional, type = "string | null")]
    #[schemars(with = "Option<String>")]
    pub sha: Option<Option<String>>,
    /// The branch: left out keeps it, `null` clears it, a non-empty string replaces it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[ts(optional, type = "string | null")]
    #[schemars(with = "Option<String>")]
    pub branch: Option<Option<String>>,
    /// The origin URL: left out keeps it, `null` clears it, a non-empty string replaces it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[ts(optional, type = "string | null")]
    #[schemars(with = "Option<String>")]
    pub origin_url: Option<Option<String>>,
}

/// Result of `thread/metadata/update`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadMetadataUpdateResponse {
    /// The thread after the update, without turns.
    pub thread: Thread,
}

/// Parameters of `thread/inject_items`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadInjectItemsParams {
    /// The thread; it must be loaded.
    pub thread_id: String,
    /// Raw Responses API items (`message`, `function_call`, …) appended to the thread's
    /// model-visible history, in order. They become no turn or item of the thread.
    #[ts(type = "Array<unknown>")]
    pub items: Vec<Value>,
}

/// Parameters of `thread/revert`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadRevertParams {
    /// The thread (loaded or stored).
    pub thread_id: String,
    /// The first turn to drop: it and every later turn leave the thread's history. Files the
    /// turns changed are not restored.
    pub before_turn_id: String,
}

/// Result of `thread/revert`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadRevertResponse {
    /// The thread after the revert; `turns` is always empty (page the kept ones with
    /// `thread/turns/list`).
    pub thread: Thread,
    /// A `thread/turns/list` cursor for `sortDirection: "desc"` whose first page starts with
    /// the last kept turn; `null` when no turn is kept.
    pub turns_backwards_cursor: Option<String>,
    /// A `thread/items/list` cursor for `sortDirection: "desc"` whose first page starts with
    /// the last kept item; `null` when no item is kept.
    pub items_backwards_cursor: Option<String>,
}
