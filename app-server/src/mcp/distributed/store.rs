//! [`SessionStore`]: the serializable half of an HTTP MCP session (what `initialize` fixed)
//! and the record of its client requests in flight, shared by every node so that any node can
//! serve any request of the session.
//!
//! Two implementations: [`MemorySessionStore`] (one process: a server without `--redis`)
//! and [`RedisSessionStore`] (one JSON value per session under `<prefix>:session:<id>`,
//! expiring after the session TTL, refreshed by every request).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mcp::distributed::events::MemoryEventStore;
use crate::mcp::distributed::{BoxFuture, Keys, StoreError};
use tandem_core::sync::lock;

/// The serializable metadata of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionMeta {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The `initialize` params as the client sent them (client info and capabilities).
    pub initialize_params: Value,
    /// Minimum `notifications/message` level, once the client set one.
    pub log_level: Option<String>,
    /// Unix milliseconds of the last request.
    pub last_access_ms: u64,
    /// The node that created the session.
    pub created_by: String,
    /// The principal that created the session (a token file's name, `default` for a
    /// generated token, the local user with `--auth none`); a request of another principal is
    /// answered as if the session did not exist. Empty in metadata written before sessions
    /// had principals: such a session matches no principal, and its client initializes again.
    #[serde(default)]
    pub principal: String,
}

/// Unix time in milliseconds.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as u64)
}

/// Where session metadata lives.
pub trait SessionStore: Send + Sync + 'static {
    /// The metadata of `id`, if the session exists.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionMeta>, StoreError>>;
    /// Stores `meta` under `id` for `ttl`.
    fn set<'a>(
        &'a self,
        id: &'a str,
        meta: &'a SessionMeta,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Extends `id`'s life by `ttl` from now and returns its metadata; `None` when it no
    /// longer exists.
    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionMeta>, StoreError>>;
    /// Deletes `id` (with its events and calls); `false` when it did not exist.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Drops what has expired (Redis expires its keys by itself).
    fn purge_expired(&self);
    /// Records that client request `call` (its id as JSON text) of `session` runs on `node`
    /// for `ttl`; with `stream_node`, also numbers the POST stream that node opens for it
    /// (session-wide, so that its `Last-Event-ID` names one stream on the whole cluster) and
    /// returns the number.
    fn register_call<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
        node: &'a str,
        stream_node: Option<&'a str>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>>;
    /// Forgets client request `call` of `session`.
    fn unregister_call<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// The node running client request `call` of `session`.
    fn call_node<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>>;
    /// The node holding POST stream `number` of `session`, while it is kept.
    fn stream_node<'a>(
        &'a self,
        session: &'a str,
        number: u64,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>>;
}

/// POST streams whose node stays on record per session (each node keeps its last 64
/// finished streams resumable).
const STREAM_NODES_KEPT: u64 = 256;

/// Sessions of one process. The metadata is kept as the JSON text Redis would hold (one
/// allocation per session), without the `initialize` params: only another node rebuilds a
/// session from them, and one process has no other node (a session it no longer holds is
/// over, and a rebuild from this store fails). A session's events go with it.
pub struct MemorySessionStore {
    sessions: Mutex<MemorySessions>,
    events: Arc<MemoryEventStore>,
}

#[derive(Default)]
struct MemorySessions {
    meta: HashMap<String, (Box<str>, Instant)>,
    calls: HashMap<String, MemoryCalls>,
}

/// The client requests in flight of one session, and the nodes of its numbered POST
/// streams as runs of consecutive numbers (one run on a single node).
#[derive(Default)]
struct MemoryCalls {
    running: HashMap<String, String>,
    last_stream: u64,
    stream_runs: VecDeque<(u64, String)>,
}

impl MemorySessionStore {
    /// Sessions whose events live in `events`.
    pub fn new(events: Arc<MemoryEventStore>) -> Self {
        Self {
            sessions: Mutex::new(MemorySessions::default()),
            events,
        }
    }

    fn live(&self, id: &str) -> Option<Box<str>> {
        let mut sessions = lock(&self.sessions);
        match sessions.meta.get(id) {
            Some((text, expires)) if *expires > Instant::now() => Some(text.clone()),
            Some(_) => {
                sessions.forget(id);
                drop(sessions);
                self.events.remove(id);
                None
            }
            None => None,
        }
    }
}

impl MemorySessions {
    fn forget(&mut self, id: &str) -> bool {
        self.calls.remove(id);
        self.meta.remove(id).is_some()
    }
}

fn decode(text: Option<Box<str>>) -> Result<Option<SessionMeta>, StoreError> {
    match text {
        Some(text) => Ok(Some(serde_json::from_str(&text)?)),
        None => Ok(None),
    }
}

impl SessionStore for MemorySessionStore {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionMeta>, StoreError>> {
        Box::pin(async move { decode(self.live(id)) })
    }

    fn set<'a>(
        &'a self,
        id: &'a str,
        meta: &'a SessionMeta,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let kept = SessionMeta {
                initialize_params: Value::Null,
                ..meta.clone()
            };
            let text = serde_json::to_string(&kept)?.into_boxed_str();
            lock(&self.sessions)
                .meta
                .insert(id.to_string(), (text, Instant::now() + ttl));
            Ok(())
        })
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionMeta>, StoreError>> {
        Box::pin(async move {
            self.live(id);
            let text = lock(&self.sessions)
                .meta
                .get_mut(id)
                .map(|(text, expires)| {
                    *expires = Instant::now() + ttl;
                    text.clone()
                });
            decode(text)
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let existed = lock(&self.sessions).forget(id);
            self.events.remove(id);
            Ok(existed)
        })
    }

    fn purge_expired(&self) {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let expired: Vec<String> = sessions
            .meta
            .iter()
            .filter(|(_, (_, expires))| *expires <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            sessions.forget(id);
        }
        drop(sessions);
        for id in &expired {
            self.events.remove(id);
        }
    }

    fn register_call<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
        node: &'a str,
        stream_node: Option<&'a str>,
        _ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        Box::pin(async move {
            let mut sessions = lock(&self.sessions);
            let calls = sessions.calls.entry(session.to_string()).or_default();
            calls.running.insert(call.to_string(), node.to_string());
            let Some(stream_node) = stream_node else {
                return Ok(None);
            };
            calls.last_stream += 1;
            let number = calls.last_stream;
            if calls
                .stream_runs
                .back()
                .is_none_or(|(_, last)| last != stream_node)
            {
                calls
                    .stream_runs
                    .push_back((number, stream_node.to_string()));
            }
            // Runs wholly older than the kept numbers go.
            let oldest_kept = number.saturating_sub(STREAM_NODES_KEPT - 1);
            while calls
                .stream_runs
                .get(1)
                .is_some_and(|(first, _)| *first <= oldest_kept)
            {
                calls.stream_runs.pop_front();
            }
            Ok(Some(number))
        })
    }

    fn unregister_call<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if let Some(calls) = lock(&self.sessions).calls.get_mut(session) {
                calls.running.remove(call);
            }
            Ok(())
        })
    }

    fn call_node<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            Ok(lock(&self.sessions)
                .calls
                .get(session)
                .and_then(|calls| calls.running.get(call).cloned()))
        })
    }

    fn stream_node<'a>(
        &'a self,
        session: &'a str,
        number: u64,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let sessions = lock(&self.sessions);
            let Some(calls) = sessions.calls.get(session) else {
                return Ok(None);
            };
            let kept =
                number <= calls.last_stream && number + STREAM_NODES_KEPT > calls.last_stream;
            if !kept {
                return Ok(None);
            }
            Ok(calls
                .stream_runs
                .iter()
                .rev()
                .find(|(first, _)| *first <= number)
                .map(|(_, node)| node.clone()))
        })
    }
}

/// Records a call: KEYS = the session's calls hash; ARGV = request id (JSON), node running
/// it, TTL in ms, `1` to number a POST stream, the node of that stream, how many stream →
/// node entries to keep. Fields `#stream` (the last stream number) and `#s<n>` (the node of
/// stream `n`) cannot collide with request ids, which are JSON. Returns the stream number
/// (0 without).
const REGISTER_CALL_SCRIPT: &str = r"
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local n = 0
if ARGV[4] == '1' then
  n = redis.call('HINCRBY', KEYS[1], '#stream', 1)
  redis.call('HSET', KEYS[1], '#s' .. n, ARGV[5])
  if n > tonumber(ARGV[6]) then
    redis.call('HDEL', KEYS[1], '#s' .. (n - tonumber(ARGV[6])))
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return n
";

/// Sessions in Redis.
pub struct RedisSessionStore {
    connection: redis::aio::ConnectionManager,
    keys: Keys,
}

impl RedisSessionStore {
    /// Sessions under `keys`' prefix.
    pub fn new(connection: redis::aio::ConnectionManager, keys: Keys) -> Self {
        Self { connection, keys }
    }
}

fn ttl_ms(ttl: Duration) -> u64 {
    (ttl.as_millis() as u64).max(1)
}

impl SessionStore for RedisSessionStore {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionMeta>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let text: Option<String> = connection.get(self.keys.session(id)).await?;
            match text {
                Some(text) => Ok(Some(serde_json::from_str(&text)?)),
                None => Ok(None),
            }
        })
    }

    fn set<'a>(
        &'a self,
        id: &'a str,
        meta: &'a SessionMeta,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let text = serde_json::to_string(meta)?;
            let () = connection
                .pset_ex(self.keys.session(id), text, ttl_ms(ttl))
                .await?;
            Ok(())
        })
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionMeta>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            // One round trip; a key expiring between the two commands reads as gone.
            let (_, text): (bool, Option<String>) = redis::pipe()
                .cmd("PEXPIRE")
                .arg(self.keys.session(id))
                .arg(ttl_ms(ttl))
                .cmd("GET")
                .arg(self.keys.session(id))
                .query_async(&mut connection)
                .await?;
            match text {
                Some(text) => Ok(Some(serde_json::from_str(&text)?)),
                None => Ok(None),
            }
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let removed: u64 = connection
                .del(&[
                    self.keys.session(id),
                    self.keys.events(id),
                    self.keys.sequence(id),
                    self.keys.delivered(id),
                    self.keys.calls(id),
                    self.keys.get_holder(id),
                ])
                .await?;
            Ok(removed > 0)
        })
    }

    fn purge_expired(&self) {}

    fn register_call<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
        node: &'a str,
        stream_node: Option<&'a str>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let number: u64 = redis::Script::new(REGISTER_CALL_SCRIPT)
                .key(self.keys.calls(session))
                .arg(call)
                .arg(node)
                .arg(ttl_ms(ttl))
                .arg(if stream_node.is_some() { "1" } else { "0" })
                .arg(stream_node.unwrap_or_default())
                .arg(STREAM_NODES_KEPT)
                .invoke_async(&mut connection)
                .await?;
            Ok(stream_node.map(|_| number))
        })
    }

    fn unregister_call<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let _: u64 = connection.hdel(self.keys.calls(session), call).await?;
            Ok(())
        })
    }

    fn call_node<'a>(
        &'a self,
        session: &'a str,
        call: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            Ok(connection.hget(self.keys.calls(session), call).await?)
        })
    }

    fn stream_node<'a>(
        &'a self,
        session: &'a str,
        number: u64,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            Ok(connection
                .hget(self.keys.calls(session), format!("#s{number}"))
                .await?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> SessionMeta {
        SessionMeta {
            protocol_version: "2025-11-25".into(),
            initialize_params: serde_json::json!({"protocolVersion": "2025-11-25"}),
            log_level: None,
            last_access_ms: now_ms(),
            created_by: "a".into(),
            principal: "alice".into(),
        }
    }

    fn memory_store() -> MemorySessionStore {
        let (streams, _forwards) = crate::mcp::distributed::bus::MemoryStreamManager::new();
        MemorySessionStore::new(Arc::new(MemoryEventStore::new(4, Arc::new(streams))))
    }

    #[tokio::test]
    async fn memory_store_sets_gets_touches_and_deletes() {
        let store = memory_store();
        assert_eq!(store.get("s").await.unwrap(), None);
        store
            .set("s", &meta(), Duration::from_secs(60))
            .await
            .unwrap();
        assert_eq!(store.get("s").await.unwrap().unwrap().created_by, "a");
        assert_eq!(store.get("s").await.unwrap().unwrap().principal, "alice");
        // One process never rebuilds a session: the params are not kept.
        assert_eq!(
            store.get("s").await.unwrap().unwrap().initialize_params,
            Value::Null
        );
        assert!(
            store
                .touch("s", Duration::from_secs(60))
                .await
                .unwrap()
                .is_some()
        );
        assert!(store.delete("s").await.unwrap());
        assert!(
            store
                .touch("s", Duration::from_secs(60))
                .await
                .unwrap()
                .is_none()
        );
        assert!(!store.delete("s").await.unwrap());
    }

    #[tokio::test]
    async fn memory_store_records_calls_and_numbers_post_streams() {
        let store = memory_store();
        let ttl = Duration::from_secs(60);
        assert_eq!(
            store.register_call("s", "1", "a", None, ttl).await.unwrap(),
            None
        );
        assert_eq!(
            store.call_node("s", "1").await.unwrap().as_deref(),
            Some("a")
        );
        store.unregister_call("s", "1").await.unwrap();
        assert_eq!(store.call_node("s", "1").await.unwrap(), None);
        for expected in 1..=STREAM_NODES_KEPT + 2 {
            let node = if expected <= 3 { "a" } else { "b" };
            let number = store
                .register_call("s", "2", "a", Some(node), ttl)
                .await
                .unwrap();
            assert_eq!(number, Some(expected));
        }
        // Streams 3 to 258 are kept: 3 is the last of the run on `a`.
        let last = STREAM_NODES_KEPT + 2;
        assert_eq!(
            store.stream_node("s", last).await.unwrap().as_deref(),
            Some("b")
        );
        assert_eq!(
            store.stream_node("s", 3).await.unwrap().as_deref(),
            Some("a")
        );
        assert_eq!(store.stream_node("s", 2).await.unwrap(), None);
        assert_eq!(store.stream_node("s", last + 1).await.unwrap(), None);
        assert_eq!(store.stream_node("t", 1).await.unwrap(), None);
    }

    #[test]
    fn metadata_without_a_principal_reads_as_owned_by_nobody() {
        let text = r#"{"protocol_version":"2025-11-25","initialize_params":{},"log_level":null,"last_access_ms":1,"created_by":"a"}"#;
        let meta: SessionMeta = serde_json::from_str(text).unwrap();
        assert_eq!(meta.principal, "");
    }

    #[tokio::test]
    async fn memory_store_entries_expire_after_their_ttl() {
        let store = memory_store();
        store.set("s", &meta(), Duration::ZERO).await.unwrap();
        store.set("t", &meta(), Duration::ZERO).await.unwrap();
        store
            .register_call("t", "1", "a", None, Duration::ZERO)
            .await
            .unwrap();
        assert_eq!(store.get("s").await.unwrap(), None);
        store.purge_expired();
        assert!(lock(&store.sessions).meta.is_empty());
        assert!(lock(&store.sessions).calls.is_empty());
    }
}
