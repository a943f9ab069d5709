//! Thread sections: named groups of a principal's threads in a client's sidebar
//! (`threadSection/create|list|update|delete`), a thread's place in one
//! (`thread/section/move`, followed by `thread/section/changed`), and `thread/list`'s
//! `sectionId` filter and `section_position` order.
//!
//! Sections are kept in the thread index, one set per principal, and every principal has the
//! built-in "Pinned" section ([`PINNED_SECTION_ID`]), which cannot be renamed or deleted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::config_requests::double_option;

/// The id of the built-in "Pinned" section, the same for every principal and every server,
/// so that clients can recognise it.
pub const PINNED_SECTION_ID: &str = "01984de2-8f74-7c91-a3b2-5c5e937cf318";

/// The name of the built-in section [`PINNED_SECTION_ID`].
pub const PINNED_SECTION_NAME: &str = "Pinned";

/// A named group of threads, shared by every client of the principal that created it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSection {
    /// The section's UUIDv7, chosen by the server; it stays when the section is renamed.
    pub id: String,
    /// The name shown to the user (trimmed, never empty).
    pub name: String,
    /// How clients draw the section, when one was set.
    #[serde(default)]
    pub appearance: Option<ThreadSectionAppearance>,
}

/// How clients draw a section. The server stores it and gives it back; it does not interpret
/// it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadSectionAppearance {
    /// A color name or code chosen by the client.
    #[serde(default)]
    pub color: Option<String>,
    /// An icon name chosen by the client.
    #[serde(default)]
    pub icon: Option<String>,
}

/// Parameters of `threadSection/create`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSectionCreateParams {
    /// The section's name; surrounding whitespace is trimmed and the rest must not be empty.
    pub name: String,
    /// How clients draw the section.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub appearance: Option<ThreadSectionAppearance>,
}

/// Result of `threadSection/create`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSectionCreateResponse {
    /// The new section, with the id the server gave it.
    pub section: ThreadSection,
}

/// Parameters of `threadSection/list`: the caller's sections, "Pinned" first, then in the
/// order they were created.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadSectionListParams {
    /// A previous page's `nextCursor`; an unknown one gives an empty page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size (at least 1); omitted means every section.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Result of `threadSection/list`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSectionListResponse {
    /// This page's sections.
    pub data: Vec<ThreadSection>,
    /// The cursor of the next page; `null` on the last one.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// Parameters of `threadSection/update`: rename a section and, optionally, change how it is
/// drawn. The built-in "Pinned" section cannot be renamed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSectionUpdateParams {
    /// The section to change.
    pub section_id: String,
    /// Its new name; surrounding whitespace is trimmed and the rest must not be empty.
    pub name: String,
    /// Left out keeps the appearance, `null` removes it, an object replaces it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[ts(optional, as = "Option<Option<ThreadSectionAppearance>>")]
    #[schemars(with = "Option<ThreadSectionAppearance>")]
    pub appearance: Option<Option<ThreadSectionAppearance>>,
}

/// Result of `threadSection/update`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSectionUpdateResponse {
    /// The section as it is now.
    pub section: ThreadSection,
}

/// Parameters of `threadSection/delete`: the section goes, and its threads belong to no
/// section afterwards. The built-in "Pinned" section cannot be deleted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSectionDeleteParams {
    /// The section to delete.
    pub section_id: String,
}

/// Result of `threadSection/delete` (empty).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ThreadSectionDeleteResponse {}

/// Parameters of `thread/section/move`: put a thread into a section (at its end, or before
/// another of its threads), move it within its section, or take it out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSectionMoveParams {
    /// The thread to move.
    pub thread_id: String,
    /// The section to put it in; `null` takes it out of its section.
    pub section_id: Option<String>,
    /// A thread of that section to put it just before; left out or `null` puts it last.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub before_thread_id: Option<String>,
}

/// Result of `thread/section/move` (empty).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ThreadSectionMoveResponse {}

/// `thread/section/changed`: a thread was moved by `thread/section/move`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSectionChangedNotification {
    /// The thread that moved.
    pub thread_id: String,
    /// The section it is in now; `null` when it was taken out of its section.
    pub section_id: Option<String>,
}
