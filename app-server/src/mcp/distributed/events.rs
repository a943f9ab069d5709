//! [`EventStore`]: the standalone (GET) stream's events of each session, numbered by a
//! per-session monotonic sequence, kept so that a client can resume with `Last-Event-ID`.
//!
//! [`MemoryEventStore`] keeps a bounded ring per session (one process). [`RedisEventStore`]
//! keeps a Redis Stream per session (`<prefix>:events:<id>`, entry id `0-<seq>`, capped at
//! about `max_len` entries) so that the resume works on any node; its append is one Lua
//! script that numbers the event, appends it and publishes it on the session's channel,
//! so a message costs one round trip.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use redis::streams::{StreamId, StreamRangeReply};

use crate::mcp::distributed::{BoxFuture, Keys, StoreError};
use tandem_core::sync::lock;

/// One stored event: its sequence number and JSON text.
pub type StoredEvent = (u64, String);

/// Where the standalone stream's events are kept for replay.
pub trait EventStore: Send + Sync + 'static {
    /// Appends `data` to `session`'s stream and returns its sequence number (1, 2, …).
    fn append<'a>(
        &'a self,
        session: &'a str,
        data: &'a str,
    ) -> BoxFuture<'a, Result<u64, StoreError>>;
    /// The kept events of `session` with a sequence number above `after`, oldest first.
    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        after: u64,
    ) -> BoxFuture<'a, Result<Vec<StoredEvent>, StoreError>>;
}

/// A bounded ring of events per session, in memory.
#[allow(
    dead_code,
    reason = "the single-process implementation of the trait; without --redis the HTTP transport keeps its own table"
)]
pub struct MemoryEventStore {
    max_len: usize,
    streams: Mutex<HashMap<String, (u64, VecDeque<StoredEvent>)>>,
}

#[allow(
    dead_code,
    reason = "the single-process implementation of the trait; without --redis the HTTP transport keeps its own table"
)]
impl MemoryEventStore {
    /// Keeps the last `max_len` events of each session.
    pub fn new(max_len: usize) -> Self {
        Self {
            max_len: max_len.max(1),
            streams: Mutex::new(HashMap::new()),
        }
    }

    /// Forgets `session`'s events.
    pub fn remove(&self, session: &str) {
        lock(&self.streams).remove(session);
    }
}

impl EventStore for MemoryEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        data: &'a str,
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(async move {
            let mut streams = lock(&self.streams);
            let (next, ring) = streams.entry(session.to_string()).or_default();
            *next += 1;
            ring.push_back((*next, data.to_string()));
            while ring.len() > self.max_len {
                ring.pop_front();
            }
            Ok(*next)
        })
    }

    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        after: u64,
    ) -> BoxFuture<'a, Result<Vec<StoredEvent>, StoreError>> {
        Box::pin(async move {
            Ok(lock(&self.streams)
                .get(session)
                .map(|(_, ring)| {
                    ring.iter()
                        .filter(|(seq, _)| *seq > after)
                        .cloned()
                        .collect()
                })
                .unwrap_or_default())
        })
    }
}

/// Numbers, appends and publishes one event: KEYS = sequence, stream, channel; ARGV = data,
/// max length, TTL in ms, publish time in µs. Returns the sequence number.
const APPEND_SCRIPT: &str = r"
local seq = redis.call('INCR', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '0-' .. seq, 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', KEYS[3], seq .. ' ' .. ARGV[4] .. ' ' .. ARGV[1])
return seq
";

/// Events in one Redis Stream per session.
pub struct RedisEventStore {
    connection: redis::aio::ConnectionManager,
    keys: Keys,
    max_len: usize,
    ttl: Duration,
    script: redis::Script,
}

impl RedisEventStore {
    /// Streams under `keys`' prefix, capped at about `max_len` entries, expiring with the
    /// session after `ttl` without events.
    pub fn new(
        connection: redis::aio::ConnectionManager,
        keys: Keys,
        max_len: usize,
        ttl: Duration,
    ) -> Self {
        Self {
            connection,
            keys,
            max_len: max_len.max(1),
            ttl,
            script: redis::Script::new(APPEND_SCRIPT),
        }
    }
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        data: &'a str,
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let seq: u64 = self
                .script
                .key(self.keys.sequence(session))
                .key(self.keys.events(session))
                .key(self.keys.stream_channel(session))
                .arg(data)
                .arg(self.max_len)
                .arg(self.ttl.as_millis() as u64)
                .arg(crate::mcp::distributed::now_micros())
                .invoke_async(&mut connection)
                .await?;
            Ok(seq)
        })
    }

    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        after: u64,
    ) -> BoxFuture<'a, Result<Vec<StoredEvent>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let mut events = Vec::new();
            let mut from = after;
            loop {
                let reply: StreamRangeReply = redis::cmd("XRANGE")
                    .arg(self.keys.events(session))
                    .arg(format!("(0-{from}"))
                    .arg("+")
                    .arg("COUNT")
                    .arg(1024)
                    .query_async(&mut connection)
                    .await?;
                let count = reply.ids.len();
                for entry in reply.ids {
                    if let Some(event) = stored_event(&entry) {
                        from = event.0;
                        events.push(event);
                    }
                }
                if count < 1024 {
                    return Ok(events);
                }
            }
        })
    }
}

fn stored_event(entry: &StreamId) -> Option<StoredEvent> {
    let seq = entry.id.strip_prefix("0-")?.parse().ok()?;
    let data: String = entry.get("d")?;
    Some((seq, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn memory_events_are_numbered_and_replayed_after_an_id_within_the_cap() {
        let store = MemoryEventStore::new(3);
        for text in ["a", "b", "c", "d"] {
            store.append("s", text).await.unwrap();
        }
        assert_eq!(store.append("t", "x").await.unwrap(), 1);
        assert_eq!(
            store.replay_after("s", 2).await.unwrap(),
            vec![(3, "c".to_string()), (4, "d".to_string())]
        );
        // The cap dropped event 1.
        assert_eq!(store.replay_after("s", 0).await.unwrap().len(), 3);
        store.remove("s");
        assert!(store.replay_after("s", 0).await.unwrap().is_empty());
    }
}
