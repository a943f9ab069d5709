//! [`EventStore`]: the standalone (GET) stream's events of each session, numbered by a
//! per-session monotonic sequence, kept so that a client can resume with `Last-Event-ID`;
//! with them, the claim of the one GET connection that reads them and the position it
//! reached.
//!
//! [`MemoryEventStore`] keeps a bounded ring per session (one process: a server without
//! `--redis`) and hands each event to the session's live stream. [`RedisEventStore`]
//! keeps a Redis Stream per session (`<prefix>:events:<id>`, entry id `0-<seq>`, capped at
//! about `max_len` entries) so that the resume works on any node; its append is one Lua
//! script that numbers the event, appends it and publishes it on the session's channel,
//! so a message costs one round trip.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::AsyncCommands;
use redis::streams::{StreamId, StreamRangeReply};

use crate::mcp::distributed::bus::{BusItem, MemoryStreamManager};
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
    /// Claims `session`'s one reader (GET stream) for `holder` for `ttl`: `true` when
    /// claimed, `false` when another holder has it. `take_over` claims it from a live holder
    /// (a resume with `Last-Event-ID`); `closed`, a holder of this node whose connection
    /// closed, may be replaced before its stream has released the claim.
    fn claim_reader<'a>(
        &'a self,
        session: &'a str,
        holder: &'a str,
        take_over: bool,
        closed: Option<&'a str>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Renews `holder`'s claim for `renew` (taking it again if it lapsed) or, with `None`,
    /// releases it; `false` when another holder has it.
    fn hold_reader<'a>(
        &'a self,
        session: &'a str,
        holder: &'a str,
        renew: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// The last event handed to a GET connection of `session`.
    fn delivered<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<Option<u64>, StoreError>>;
    /// Records `seq` as the last event handed to a GET connection of `session`, for `ttl`.
    fn save_delivered<'a>(
        &'a self,
        session: &'a str,
        seq: u64,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// How often a reader saves its position while events flow.
    fn save_every(&self) -> Duration;
}

/// A bounded ring of events per session, in memory, with its reader's claim and position.
pub struct MemoryEventStore {
    max_len: usize,
    streams: Mutex<HashMap<String, MemoryStream>>,
    live: Arc<MemoryStreamManager>,
}

#[derive(Default)]
struct MemoryStream {
    last: u64,
    ring: VecDeque<StoredEvent>,
    reader: Option<(String, Instant)>,
    delivered: Option<u64>,
}

impl MemoryEventStore {
    /// Keeps the last `max_len` events of each session and hands each new one to the
    /// session's stream in `live`.
    pub fn new(max_len: usize, live: Arc<MemoryStreamManager>) -> Self {
        Self {
            max_len: max_len.max(1),
            streams: Mutex::new(HashMap::new()),
            live,
        }
    }

    /// Forgets `session`'s events, reader and position.
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
            let stream = streams.entry(session.to_string()).or_default();
            stream.last += 1;
            let seq = stream.last;
            stream.ring.push_back((seq, data.to_string()));
            while stream.ring.len() > self.max_len {
                stream.ring.pop_front();
            }
            // Under the lock, so that live streams see the events in sequence order.
            self.live.deliver(
                session,
                BusItem::Event {
                    seq,
                    data: data.to_string(),
                    published_micros: crate::mcp::distributed::now_micros(),
                },
            );
            Ok(seq)
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
                .map(|stream| {
                    stream
                        .ring
                        .iter()
                        .filter(|(seq, _)| *seq > after)
                        .cloned()
                        .collect()
                })
                .unwrap_or_default())
        })
    }

    fn claim_reader<'a>(
        &'a self,
        session: &'a str,
        holder: &'a str,
        take_over: bool,
        closed: Option<&'a str>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            let mut streams = lock(&self.streams);
            let stream = streams.entry(session.to_string()).or_default();
            let free = match &stream.reader {
                None => true,
                Some((current, expires)) => {
                    *expires <= now || take_over || closed == Some(current.as_str())
                }
            };
            if free {
                stream.reader = Some((holder.to_string(), now + ttl));
            }
            Ok(free)
        })
    }

    fn hold_reader<'a>(
        &'a self,
        session: &'a str,
        holder: &'a str,
        renew: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            let mut streams = lock(&self.streams);
            let Some(stream) = streams.get_mut(session) else {
                // The session is gone: nothing to hold.
                return Ok(renew.is_none());
            };
            let current = stream
                .reader
                .as_ref()
                .filter(|(_, expires)| *expires > now)
                .map(|(current, _)| current.as_str());
            match (renew, current) {
                (Some(ttl), None) => {
                    stream.reader = Some((holder.to_string(), now + ttl));
                    Ok(true)
                }
                (Some(ttl), Some(current)) if current == holder => {
                    stream.reader = Some((holder.to_string(), now + ttl));
                    Ok(true)
                }
                (Some(_), Some(_)) => Ok(false),
                (None, Some(current)) if current == holder => {
                    stream.reader = None;
                    Ok(true)
                }
                (None, _) => Ok(true),
            }
        })
    }

    fn delivered<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        Box::pin(async move {
            Ok(lock(&self.streams)
                .get(session)
                .and_then(|stream| stream.delivered))
        })
    }

    fn save_delivered<'a>(
        &'a self,
        session: &'a str,
        seq: u64,
        _ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            // A session deleted meanwhile keeps no position.
            if let Some(stream) = lock(&self.streams).get_mut(session) {
                stream.delivered = Some(seq);
            }
            Ok(())
        })
    }

    fn save_every(&self) -> Duration {
        // Saving costs a map write: every event, as the position is exact.
        Duration::ZERO
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

/// Claims the session's GET stream: KEYS = holder key; ARGV = holder, TTL in ms, `1` to take
/// it over from a live holder (a resume with `Last-Event-ID`). 1 when claimed, 0 when
/// another stream holds it.
/// ARGV[4], when given, is a holder of this node whose connection closed: its claim may be
/// replaced before its stream has released it.
const CLAIM_SCRIPT: &str = r"
if ARGV[3] == '1' or (ARGV[4] and redis.call('GET', KEYS[1]) == ARGV[4]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return 0
";

/// Renews (ARGV[2] = TTL in ms) or, without a TTL, releases the claim if it is still
/// ARGV[1]'s. A renewal finding the claim lapsed (a renewal delayed past the TTL) takes it
/// again. 0 when another stream holds it, else 1.
const HOLD_SCRIPT: &str = r"
local current = redis.call('GET', KEYS[1])
if ARGV[2] then
  if current == false then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 1
  end
  if current ~= ARGV[1] then
    return 0
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if current == ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 1
";

fn ttl_ms(ttl: Duration) -> u64 {
    (ttl.as_millis() as u64).max(1)
}

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

    fn claim_reader<'a>(
        &'a self,
        session: &'a str,
        holder: &'a str,
        take_over: bool,
        closed: Option<&'a str>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let script = redis::Script::new(CLAIM_SCRIPT);
            let mut claim = script.prepare_invoke();
            claim
                .key(self.keys.get_holder(session))
                .arg(holder)
                .arg(ttl_ms(ttl))
                .arg(if take_over { "1" } else { "0" });
            if let Some(closed) = closed {
                claim.arg(closed);
            }
            let claimed: i64 = claim.invoke_async(&mut connection).await?;
            Ok(claimed == 1)
        })
    }

    fn hold_reader<'a>(
        &'a self,
        session: &'a str,
        holder: &'a str,
        renew: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let script = redis::Script::new(HOLD_SCRIPT);
            let mut invocation = script.prepare_invoke();
            invocation.key(self.keys.get_holder(session)).arg(holder);
            if let Some(ttl) = renew {
                invocation.arg(ttl_ms(ttl));
            }
            let held: i64 = invocation.invoke_async(&mut connection).await?;
            Ok(held == 1)
        })
    }

    fn delivered<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            Ok(connection.get(self.keys.delivered(session)).await?)
        })
    }

    fn save_delivered<'a>(
        &'a self,
        session: &'a str,
        seq: u64,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let () = connection
                .pset_ex(self.keys.delivered(session), seq, ttl_ms(ttl))
                .await?;
            Ok(())
        })
    }

    fn save_every(&self) -> Duration {
        // One round trip per save: at most once a second while events flow.
        Duration::from_secs(1)
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
    use crate::mcp::distributed::bus::StreamManager;

    fn memory_store(max_len: usize) -> (MemoryEventStore, Arc<MemoryStreamManager>) {
        let (live, _forwards) = MemoryStreamManager::new();
        let live = Arc::new(live);
        (MemoryEventStore::new(max_len, live.clone()), live)
    }

    #[tokio::test]
    async fn memory_events_are_numbered_and_replayed_after_an_id_within_the_cap() {
        let (store, _) = memory_store(3);
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

    #[tokio::test]
    async fn memory_events_reach_the_live_stream_in_order() {
        let (store, live) = memory_store(8);
        let mut registration = live.register("s").await;
        store.append("s", "a").await.unwrap();
        store.append("s", "b").await.unwrap();
        for (expected_seq, expected) in [(1, "a"), (2, "b")] {
            match registration.items.recv().await {
                Some(BusItem::Event { seq, data, .. }) => {
                    assert_eq!((seq, data.as_str()), (expected_seq, expected));
                }
                other => panic!("expected an event, got {other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn one_memory_reader_holds_a_session_until_released_or_taken_over() {
        let (store, _) = memory_store(8);
        let ttl = Duration::from_secs(60);
        assert!(
            store
                .claim_reader("s", "a", false, None, ttl)
                .await
                .unwrap()
        );
        assert!(
            !store
                .claim_reader("s", "b", false, None, ttl)
                .await
                .unwrap()
        );
        assert!(
            store
                .claim_reader("s", "b", false, Some("a"), ttl)
                .await
                .unwrap()
        );
        assert!(!store.hold_reader("s", "a", Some(ttl)).await.unwrap());
        assert!(store.claim_reader("s", "c", true, None, ttl).await.unwrap());
        // Releasing another holder's claim leaves it.
        assert!(store.hold_reader("s", "b", None).await.unwrap());
        assert!(
            !store
                .claim_reader("s", "d", false, None, ttl)
                .await
                .unwrap()
        );
        assert!(store.hold_reader("s", "c", None).await.unwrap());
        assert!(
            store
                .claim_reader("s", "d", false, None, ttl)
                .await
                .unwrap()
        );
        store.save_delivered("s", 7, ttl).await.unwrap();
        assert_eq!(store.delivered("s").await.unwrap(), Some(7));
        store.remove("s");
        assert_eq!(store.delivered("s").await.unwrap(), None);
    }
}
