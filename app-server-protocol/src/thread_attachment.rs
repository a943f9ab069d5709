//! A thread's attachments: `thread/attachment/add`, `thread/attachment/list` and
//! `thread/attachment/remove`, and the `thread/attachment/updated` notification.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// Data a client keeps with a thread, identified within it by `(attachmentType,
/// identityKey)`. The server stores the payload as given and never reads a file it names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadAttachment {
    /// Server-generated id (UUIDv7).
    pub id: String,
    /// The client's kind of attachment (`file`, …).
    pub attachment_type: String,
    /// What makes the attachment unique within its type on this thread (a path, a URL, …).
    pub identity_key: String,
    /// The client's data, any JSON value.
    #[ts(type = "unknown")]
    pub payload: Value,
    /// When it was added (Unix seconds).
    pub created_at: i64,
}

/// Whether `thread/attachment/add` created the attachment or found it already there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadAttachmentAddOutcome {
    /// A new attachment was stored.
    Created,
    /// One with the same type and identity was already there; it is returned unchanged.
    Existing,
}

/// What a `thread/attachment/updated` notification reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ThreadAttachmentOperation {
    /// The attachment was added.
    Created,
    /// The attachment was removed.
    Deleted,
}

/// Parameters of `thread/attachment/add`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadAttachmentAddParams {
    /// The thread (loaded or stored, with at least one turn).
    pub thread_id: String,
    /// The kind of attachment; not empty, at most 1 KiB.
    pub attachment_type: String,
    /// Its identity within the type; not empty, at most 1 KiB.
    pub identity_key: String,
    /// The data to keep; at most 64 KiB once serialized.
    #[ts(type = "unknown")]
    pub payload: Value,
}

/// Result of `thread/attachment/add`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadAttachmentAddResponse {
    /// Whether it was created now or already there.
    pub outcome: ThreadAttachmentAddOutcome,
    /// The attachment as stored.
    pub attachment: ThreadAttachment,
}

/// Parameters of `thread/attachment/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadAttachmentListParams {
    /// The thread. One that does not exist (for the caller) has no attachments.
    pub thread_id: String,
    /// The `nextCursor` of an earlier page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size (at least 1; every attachment when absent).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Result of `thread/attachment/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadAttachmentListResponse {
    /// The attachments of this page, oldest first.
    pub data: Vec<ThreadAttachment>,
    /// Cursor of the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// Parameters of `thread/attachment/remove`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadAttachmentRemoveParams {
    /// The thread (loaded or stored, with at least one turn).
    pub thread_id: String,
    /// The kind of the attachment to remove.
    pub attachment_type: String,
    /// Its identity within the type. Removing one that is not there succeeds.
    pub identity_key: String,
}

/// `thread/attachment/updated`: an attachment was added or removed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadAttachmentUpdatedNotification {
    /// The thread.
    pub thread_id: String,
    /// The attachment's kind.
    pub attachment_type: String,
    /// The attachment's identity within its kind.
    pub identity_key: String,
    /// The attachment's id.
    pub attachment_id: String,
    /// What happened to it.
    pub operation: ThreadAttachmentOperation,
}
