//! [`SessionStore`]: the serializable half of an HTTP MCP session (what `initialize` fixed),
//! shared by every node so that any node can serve any request of the session.
//!
//! Two implementations: [`MemorySessionStore`] (one process) and [`RedisSessionStore`] (one
//! JSON value per session under `<prefix>:session:<id>`, expiring after the session TTL,
//! refreshed by every request).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// Whether `id` exists.
    #[allow(
        dead_code,
        reason = "part of the contract; the HTTP transport does not need it yet"
    )]
    fn has<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Deletes `id`; `false` when it did not exist.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Every live session id.
    #[allow(
        dead_code,
        reason = "part of the contract; the HTTP transport does not need it yet"
    )]
    fn keys(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>>;
}

/// Sessions of one process.
#[derive(Default)]
#[allow(
    dead_code,
    reason = "the single-process implementation of the trait; without --redis the HTTP transport keeps its own table"
)]
pub struct MemorySessionStore {
    sessions: Mutex<HashMap<String, (SessionMeta, Instant)>>,
}

#[allow(
    dead_code,
    reason = "the single-process implementation of the trait; without --redis the HTTP transport keeps its own table"
)]
impl MemorySessionStore {
    fn live(&self, id: &str) -> Option<SessionMeta> {
        let mut sessions = lock(&self.sessions);
        match sessions.get(id) {
            Some((meta, expires)) if *expires > Instant::now() => Some(meta.clone()),
            Some(_) => {
                sessions.remove(id);
                None
            }
            None => None,
        }
    }
}

impl SessionStore for MemorySessionStore {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionMeta>, StoreError>> {
        Box::pin(async move { Ok(self.live(id)) })
    }

    fn set<'a>(
        &'a self,
        id: &'a str,
        meta: &'a SessionMeta,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            lock(&self.sessions).insert(id.to_string(), (meta.clone(), Instant::now() + ttl));
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
            Ok(lock(&self.sessions).get_mut(id).map(|(meta, expires)| {
                meta.last_access_ms = now_ms();
                *expires = Instant::now() + ttl;
                meta.clone()
            }))
        })
    }

    fn has<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move { Ok(self.live(id).is_some()) })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move { Ok(lock(&self.sessions).remove(id).is_some()) })
    }

    fn keys(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            Ok(lock(&self.sessions)
                .iter()
                .filter(|(_, (_, expires))| *expires > now)
                .map(|(id, _)| id.clone())
                .collect())
        })
    }
}

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

    fn has<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            Ok(connection.exists(self.keys.session(id)).await?)
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

    fn keys(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let pattern = self.keys.session("*");
            let mut ids = Vec::new();
            let mut cursor: u64 = 0;
            loop {
                let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(500)
                    .query_async(&mut connection)
                    .await?;
                let strip = pattern.trim_end_matches('*');
                ids.extend(
                    batch
                        .into_iter()
                        .filter_map(|key| key.strip_prefix(strip).map(str::to_string)),
                );
                if next == 0 {
                    return Ok(ids);
                }
                cursor = next;
            }
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

    #[tokio::test]
    async fn memory_store_sets_gets_touches_and_deletes() {
        let store = MemorySessionStore::default();
        assert_eq!(store.get("s").await.unwrap(), None);
        store
            .set("s", &meta(), Duration::from_secs(60))
            .await
            .unwrap();
        assert!(store.has("s").await.unwrap());
        assert_eq!(store.get("s").await.unwrap().unwrap().created_by, "a");
        assert_eq!(store.get("s").await.unwrap().unwrap().principal, "alice");
        assert!(
            store
                .touch("s", Duration::from_secs(60))
                .await
                .unwrap()
                .is_some()
        );
        assert_eq!(store.keys().await.unwrap(), vec!["s".to_string()]);
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

    #[test]
    fn metadata_without_a_principal_reads_as_owned_by_nobody() {
        let text = r#"{"protocol_version":"2025-11-25","initialize_params":{},"log_level":null,"last_access_ms":1,"created_by":"a"}"#;
        let meta: SessionMeta = serde_json::from_str(text).unwrap();
        assert_eq!(meta.principal, "");
    }

    #[tokio::test]
    async fn memory_store_entries_expire_after_their_ttl() {
        let store = MemorySessionStore::default();
        store.set("s", &meta(), Duration::ZERO).await.unwrap();
        assert!(!store.has("s").await.unwrap());
        assert!(store.keys().await.unwrap().is_empty());
    }
}
