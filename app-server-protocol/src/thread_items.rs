//! Params and result of `thread/items/list`: a thread's items across its turns, one page at a
//! time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::item::ThreadItem;
use crate::policy::SortDirection;

/// Parameters of `thread/items/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadItemsListParams {
    /// The thread whose items to list.
    pub thread_id: String,
    /// Only the items of this turn; every turn's when absent.
    #[serde(default)]
    pub turn_id: Option<String>,
    /// Where the page starts: the `nextCursor` (or `backwardsCursor`) of an earlier page, or an
    /// item of the turn named by `turnId` (the page then starts just after it, in
    /// `sortDirection`).
    #[serde(default)]
    pub cursor: Option<ThreadItemsListCursor>,
    /// Page size (at least 1; every item when absent).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Order (default `asc`, oldest first).
    #[serde(default)]
    pub sort_direction: Option<SortDirection>,
    /// Which outputs the client would fetch separately. Accepted; Tandem returns every item
    /// whole, so `outputDeferred` is always `false`.
    #[serde(default)]
    pub defer_output: Option<ThreadItemOutputDeferral>,
}

/// Where a `thread/items/list` page starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(untagged)]
pub enum ThreadItemsListCursor {
    /// An opaque cursor from an earlier page.
    Opaque(String),
    /// Just after an item of the requested turn.
    Anchor(ThreadItemsListAnchor),
}

/// An item position within the turn named by `turnId`, excluded from the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ThreadItemsListAnchor {
    /// The item with this id.
    Item {
        /// The item's id.
        item_id: String,
    },
}

/// Which saved outputs a client would rather fetch separately.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadItemOutputDeferral {
    /// Nonempty output of successful commands.
    #[serde(default)]
    pub command_execution: Option<bool>,
    /// Nonempty plain-text results of successful MCP tool calls.
    #[serde(default)]
    pub mcp_tool_call: Option<bool>,
}

/// Result of `thread/items/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadItemsListResponse {
    /// One page of items.
    pub data: Vec<ThreadItemEntry>,
    /// Cursor of the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
    /// Cursor of the items before this page, for the opposite `sortDirection`; `null` when
    /// the page is empty.
    #[serde(default)]
    pub backwards_cursor: Option<String>,
}

/// One item of `thread/items/list`, with its turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadItemEntry {
    /// The item.
    pub item: ThreadItem,
    /// The turn it belongs to.
    pub turn_id: String,
    /// When the item started (Unix milliseconds), as recorded.
    #[serde(default)]
    pub started_at_ms: Option<i64>,
    /// When the item completed (Unix milliseconds), as recorded.
    #[serde(default)]
    pub completed_at_ms: Option<i64>,
    /// Whether the item's output was left out; always `false` in Tandem.
    pub output_deferred: bool,
}
