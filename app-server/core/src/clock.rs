//! Wall-clock helpers: the Unix timestamps that items, turns and notifications carry.

use std::time::{SystemTime, UNIX_EPOCH};

/// Current Unix time in milliseconds.
pub fn unix_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

/// Current Unix time in seconds.
pub fn unix_seconds() -> i64 {
    unix_millis() / 1000
}
