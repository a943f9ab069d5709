//! `thread/list` cursors: the sort key and id of the last thread of a page, as
//! `"<RFC 3339 time>|<thread id>"`.
//!
//! The time has seconds for `created_at` (`2026-11-21T20:45:42Z|01a1ffdb-…`, as Codex writes it)
//! and milliseconds for `updated_at` and `recency_at` (`2026-11-21T20:45:43.428Z|01a1ffdb-…`).
//! The id breaks ties between threads with equal times, so that pages neither repeat nor skip
//! threads.

use app_server_protocol::thread_requests::ThreadSortKey;

use crate::store::StoreError;
use crate::store::rollout::{format_rfc3339_millis, format_rfc3339_seconds, parse_rfc3339_millis};

/// Where a page starts: after the thread with this sort key value and id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Position {
    /// `created_at` (seconds) or `updated_at_ms` (milliseconds), as the sort key says.
    pub(super) key: i64,
    /// Thread id.
    pub(super) id: String,
}

/// The cursor that continues after the thread with sort key value `key` and id `id`.
pub(super) fn encode(sort_key: ThreadSortKey, key: i64, id: &str) -> String {
    let time = match sort_key {
        ThreadSortKey::CreatedAt => format_rfc3339_seconds(key),
        ThreadSortKey::UpdatedAt | ThreadSortKey::RecencyAt | ThreadSortKey::SectionPosition => {
            format_rfc3339_millis(key)
        }
    };
    format!("{time}|{id}")
}

/// Parses a cursor made by [`encode`]; anything else is [`StoreError::InvalidCursor`].
pub(super) fn decode(sort_key: ThreadSortKey, cursor: &str) -> Result<Position, StoreError> {
    let invalid = || StoreError::InvalidCursor(cursor.to_owned());
    let Some((time, id)) = cursor.split_once('|') else {
        return Err(invalid());
    };
    if id.is_empty() {
        return Err(invalid());
    }
    let Some(milliseconds) = parse_rfc3339_millis(time) else {
        return Err(invalid());
    };
    let key = match sort_key {
        ThreadSortKey::CreatedAt => milliseconds.div_euclid(1000),
        ThreadSortKey::UpdatedAt | ThreadSortKey::RecencyAt | ThreadSortKey::SectionPosition => {
            milliseconds
        }
    };
    Ok(Position {
        key,
        id: id.to_owned(),
    })
}
