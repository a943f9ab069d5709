//! `thread/list` cursors: the sort key and id of the last thread of a page, as
//! `"<key>|<thread id>"`.
//!
//! The key is an RFC 3339 time with seconds for `created_at` (`2026-11-21T20:45:42Z|01a1ffdb-…`,
//! as Codex writes it) and milliseconds for `updated_at` and `recency_at`
//! (`2026-11-21T20:45:43.428Z|01a1ffdb-…`), and the thread's position in its section, a plain
//! integer, for `section_position` (`2000000|01a1ffdb-…`). The id breaks ties between threads
//! with equal keys, so that pages neither repeat nor skip threads.

use crate::store::StoreError;
use crate::store::rollout::{format_rfc3339_millis, format_rfc3339_seconds, parse_rfc3339_millis};

/// How a sort key's value is written in a cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyFormat {
    /// Unix seconds as an RFC 3339 time.
    Seconds,
    /// Unix milliseconds as an RFC 3339 time with milliseconds.
    Millis,
    /// A section position, as a decimal integer.
    Position,
}

/// Where a page starts: after the thread with this sort key value and id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Position {
    /// `created_at` (seconds), `updated_at_ms` (milliseconds) or the section position.
    pub(super) key: i64,
    /// Thread id.
    pub(super) id: String,
}

/// The cursor that continues after the thread with sort key value `key` and id `id`.
pub(super) fn encode(format: KeyFormat, key: i64, id: &str) -> String {
    let key = match format {
        KeyFormat::Seconds => format_rfc3339_seconds(key),
        KeyFormat::Millis => format_rfc3339_millis(key),
        KeyFormat::Position => key.to_string(),
    };
    format!("{key}|{id}")
}

/// Parses a cursor made by [`encode`]; anything else is [`StoreError::InvalidCursor`].
pub(super) fn decode(format: KeyFormat, cursor: &str) -> Result<Position, StoreError> {
    let invalid = || StoreError::InvalidCursor(cursor.to_owned());
    let Some((key, id)) = cursor.split_once('|') else {
        return Err(invalid());
    };
    if id.is_empty() {
        return Err(invalid());
    }
    let key = match format {
        KeyFormat::Position => key.parse::<i64>().map_err(|_| invalid())?,
        KeyFormat::Seconds | KeyFormat::Millis => {
            let Some(milliseconds) = parse_rfc3339_millis(key) else {
                return Err(invalid());
            };
            if format == KeyFormat::Seconds {
                milliseconds.div_euclid(1000)
            } else {
                milliseconds
            }
        }
    };
    Ok(Position {
        key,
        id: id.to_owned(),
    })
}
