//! Threads across nodes: leases and mirrored rollouts.
//!
//! A thread belongs to the node that runs it: `<prefix>:lease:<thread>` holds that node's id
//! and expires after the lease TTL unless the node renews it (it does while the thread is
//! loaded). Every rollout line is also appended to `<prefix>:rollout:<thread>`, so that when
//! the owner is dead (its lease expired) another node rebuilds the rollout file in its own
//! home and takes the thread over with its history.
//!
//! [`ThreadStore`] holds both: [`RedisThreadStore`] for a cluster, [`MemoryThreadStore`] for a
//! server without `--redis`, which is the only node (its leases are always its own, and it
//! mirrors nothing).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::AsyncCommands;
use tokio::sync::mpsc;

use crate::mcp::distributed::metrics::Metrics;
use crate::mcp::distributed::{BoxFuture, Cluster, DistributedOptions, Keys, StoreError};
use tandem_core::store::{RolloutMirror, Store};
use tandem_core::sync::lock;

/// Takes or renews a lease: KEYS = lease; ARGV = node, TTL in ms. 2 when this node just
/// took it, 1 when it renewed it, 0 when another node holds it.
const LEASE_SCRIPT: &str = r"
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 2
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
";

/// The outcome of [`Cluster::take_lease`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lease {
    /// This node just took it (nobody held it).
    Taken,
    /// This node held it and renewed it.
    Renewed,
    /// Another node holds it.
    Elsewhere,
}

/// Where thread leases and mirrored rollouts live.
pub trait ThreadStore: Send + Sync + 'static {
    /// Takes or renews the lease of `thread_id` for `node`, for `ttl`.
    fn take_lease<'a>(
        &'a self,
        thread_id: &'a str,
        node: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Lease, StoreError>>;
    /// The node holding `thread_id`'s lease, if any.
    fn lease_holder<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>>;
    /// The mirrored rollout of `thread_id` (its header first), when lines are mirrored.
    fn mirrored_rollout<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>>;
    /// Starts mirroring this node's rollout lines, when this store keeps them.
    fn start_mirror(&self) -> Option<Box<dyn RolloutMirror>>;
}

/// Leases of the only node, in memory; nothing is mirrored.
#[derive(Default)]
pub struct MemoryThreadStore {
    leases: Mutex<MemoryLeases>,
}

#[derive(Default)]
struct MemoryLeases {
    held: HashMap<String, (String, Instant)>,
    /// The size at which expired leases are next dropped (twice the live ones after the last
    /// purge), so that renewing every loaded thread stays linear.
    purge_at: usize,
}

impl ThreadStore for MemoryThreadStore {
    fn take_lease<'a>(
        &'a self,
        thread_id: &'a str,
        node: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Lease, StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            let mut leases = lock(&self.leases);
            if leases.held.len() >= leases.purge_at {
                leases.held.retain(|_, (_, expires)| *expires > now);
                leases.purge_at = (leases.held.len() * 2).max(64);
            }
            let lease = match leases.held.get_mut(thread_id) {
                Some((holder, expires)) if *expires > now => {
                    if holder != node {
                        return Ok(Lease::Elsewhere);
                    }
                    *expires = now + ttl;
                    return Ok(Lease::Renewed);
                }
                _ => Lease::Taken,
            };
            leases
                .held
                .insert(thread_id.to_string(), (node.to_string(), now + ttl));
            Ok(lease)
        })
    }

    fn lease_holder<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            Ok(lock(&self.leases)
                .held
                .get(thread_id)
                .filter(|(_, expires)| *expires > now)
                .map(|(holder, _)| holder.clone()))
        })
    }

    fn mirrored_rollout<'a>(
        &'a self,
        _thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        Box::pin(async move { Ok(None) })
    }

    fn start_mirror(&self) -> Option<Box<dyn RolloutMirror>> {
        None
    }
}

/// Leases and mirrored rollouts in Redis.
pub struct RedisThreadStore {
    connection: redis::aio::ConnectionManager,
    keys: Keys,
    rollout_stream_len: usize,
    rollout_ttl: Duration,
    metrics: Arc<Metrics>,
}

impl RedisThreadStore {
    /// Leases and rollouts under `keys`' prefix, mirrored as `options` says.
    pub fn new(
        connection: redis::aio::ConnectionManager,
        keys: Keys,
        options: &DistributedOptions,
        metrics: Arc<Metrics>,
    ) -> Self {
        Self {
            connection,
            keys,
            rollout_stream_len: options.rollout_stream_len,
            rollout_ttl: options.rollout_ttl,
            metrics,
        }
    }
}

impl ThreadStore for RedisThreadStore {
    fn take_lease<'a>(
        &'a self,
        thread_id: &'a str,
        node: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Lease, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let held: i64 = redis::Script::new(LEASE_SCRIPT)
                .key(self.keys.lease(thread_id))
                .arg(node)
                .arg(ttl.as_millis() as u64)
                .invoke_async(&mut connection)
                .await?;
            Ok(match held {
                2 => Lease::Taken,
                1 => Lease::Renewed,
                _ => Lease::Elsewhere,
            })
        })
    }

    fn lease_holder<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            Ok(connection.get(self.keys.lease(thread_id)).await?)
        })
    }

    fn mirrored_rollout<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let entries: redis::streams::StreamRangeReply =
                connection.xrange_all(self.keys.rollout(thread_id)).await?;
            let mut text = Vec::new();
            for entry in &entries.ids {
                if let Some(line) = entry.get::<Vec<u8>>("l") {
                    if text.is_empty() && !is_header(&line) {
                        // Trimmed at the cap: the header is kept apart.
                        let head: Option<Vec<u8>> =
                            connection.get(self.keys.rollout_head(thread_id)).await?;
                        if let Some(head) = head {
                            tracing::warn!(%thread_id, "mirrored rollout was trimmed; the rebuilt thread keeps its latest lines only");
                            text.extend_from_slice(&head);
                        }
                    }
                    text.extend_from_slice(&line);
                }
            }
            Ok((!text.is_empty()).then_some(text))
        })
    }

    fn start_mirror(&self) -> Option<Box<dyn RolloutMirror>> {
        Some(Box::new(RedisRolloutMirror::start(self)))
    }
}

/// How many rollout lines may wait for Redis before new ones are dropped (and counted).
const MIRROR_QUEUE: usize = 65_536;

/// What the mirror's task writes.
enum Mirrored {
    /// A line of the thread's rollout.
    Line(String, Vec<u8>),
    /// The thread left this home (archived): its mirror goes.
    Forget(String),
    /// The thread was deleted: its mirror and its lease go.
    Delete(String),
}

/// Mirrors rollout lines to Redis from a bounded queue.
pub struct RedisRolloutMirror {
    lines: mpsc::Sender<Mirrored>,
    metrics: Arc<super::metrics::Metrics>,
}

impl RedisRolloutMirror {
    /// Starts the task that appends queued lines to `<prefix>:rollout:<thread>`, capped at
    /// about `rollout_stream_len` lines (the `session_meta` header is also kept apart in
    /// `<prefix>:rollout-head:<thread>`), both expiring `rollout_ttl` after the last line.
    fn start(threads: &RedisThreadStore) -> Self {
        let (lines, mut queued) = mpsc::channel::<Mirrored>(MIRROR_QUEUE);
        let connection = threads.connection.clone();
        let keys = threads.keys.clone();
        let metrics = threads.metrics.clone();
        let max_len = threads.rollout_stream_len;
        let ttl = (threads.rollout_ttl.as_millis() as u64).max(1);
        tokio::spawn(async move {
            let mut batch = Vec::new();
            while queued.recv_many(&mut batch, 256).await > 0 {
                let mut pipeline = redis::pipe();
                let mut touched = std::collections::BTreeSet::new();
                for item in batch.drain(..) {
                    match item {
                        Mirrored::Line(thread_id, line) => {
                            if is_header(&line) {
                                pipeline
                                    .cmd("SET")
                                    .arg(keys.rollout_head(&thread_id))
                                    .arg(line.as_slice())
                                    .ignore();
                            }
                            pipeline
                                .cmd("XADD")
                                .arg(keys.rollout(&thread_id))
                                .arg("MAXLEN")
                                .arg("~")
                                .arg(max_len)
                                .arg("*")
                                .arg("l")
                                .arg(line)
                                .ignore();
                            touched.insert(thread_id);
                        }
                        Mirrored::Forget(thread_id) => {
                            touched.remove(&thread_id);
                            pipeline
                                .cmd("DEL")
                                .arg(keys.rollout(&thread_id))
                                .arg(keys.rollout_head(&thread_id))
                                .ignore();
                        }
                        Mirrored::Delete(thread_id) => {
                            touched.remove(&thread_id);
                            pipeline
                                .cmd("DEL")
                                .arg(keys.rollout(&thread_id))
                                .arg(keys.rollout_head(&thread_id))
                                .arg(keys.lease(&thread_id))
                                .ignore();
                        }
                    }
                }
                for thread_id in touched {
                    for key in [keys.rollout(&thread_id), keys.rollout_head(&thread_id)] {
                        pipeline.cmd("PEXPIRE").arg(key).arg(ttl).ignore();
                    }
                }
                let mut connection = connection.clone();
                let written: Result<(), redis::RedisError> =
                    pipeline.query_async(&mut connection).await;
                if let Err(error) = written {
                    metrics.redis_errors.inc();
                    tracing::warn!(%error, "rollout lines not mirrored to Redis");
                }
            }
        });
        Self {
            lines,
            metrics: threads.metrics.clone(),
        }
    }
}

/// Whether a rollout line is the `session_meta` header.
fn is_header(line: &[u8]) -> bool {
    const MARK: &[u8] = b"\"type\":\"session_meta\"";
    line.windows(MARK.len())
        .take(96)
        .any(|window| window == MARK)
}

/// The thread id of a rollout file `rollout-<time>-<id>.jsonl` (ids are 36-character UUIDs).
fn thread_of_rollout(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let start = stem.len().checked_sub(36)?;
    stem.get(start..).map(str::to_string)
}

impl RolloutMirror for RedisRolloutMirror {
    fn mirror(&self, path: &Path, line: &[u8]) {
        let Some(thread_id) = thread_of_rollout(path) else {
            return;
        };
        if self
            .lines
            .try_send(Mirrored::Line(thread_id, line.to_vec()))
            .is_err()
        {
            self.metrics.redis_errors.inc();
            tracing::warn!("rollout mirror queue full; a line was not mirrored");
        }
    }

    fn forget(&self, thread_id: &str) {
        if self
            .lines
            .try_send(Mirrored::Forget(thread_id.to_string()))
            .is_err()
        {
            self.metrics.redis_errors.inc();
            tracing::warn!(%thread_id, "rollout mirror queue full; an archived thread's mirror stays until it expires");
        }
    }

    fn delete(&self, thread_id: &str) {
        if self
            .lines
            .try_send(Mirrored::Delete(thread_id.to_string()))
            .is_err()
        {
            self.metrics.redis_errors.inc();
            tracing::warn!(%thread_id, "rollout mirror queue full; a deleted thread's mirror and lease stay until they expire");
        }
    }
}

impl Keys {
    /// The lease of a thread.
    pub fn lease(&self, thread_id: &str) -> String {
        format!("{}:lease:{thread_id}", self.prefix)
    }

    /// The mirrored `session_meta` header of a thread (kept when the lines are trimmed).
    pub fn rollout_head(&self, thread_id: &str) -> String {
        format!("{}:rollout-head:{thread_id}", self.prefix)
    }

    /// The mirrored rollout lines of a thread.
    pub fn rollout(&self, thread_id: &str) -> String {
        format!("{}:rollout:{thread_id}", self.prefix)
    }
}

impl Cluster {
    /// Takes or renews the lease of `thread_id` for this node.
    pub async fn take_lease(&self, thread_id: &str) -> Result<Lease, StoreError> {
        let taken = self
            .threads
            .take_lease(thread_id, self.node_id(), self.lease_ttl)
            .await;
        self.counted(taken)
    }

    /// The node holding `thread_id`'s lease, if any.
    pub async fn lease_holder(&self, thread_id: &str) -> Result<Option<String>, StoreError> {
        let holder = self.threads.lease_holder(thread_id).await;
        self.counted(holder)
    }

    /// Rewrites `thread_id`'s rollout in this node's home from the mirrored lines (when the
    /// thread store has any), so that the engine resumes it with its whole history. `false`
    /// when nothing is mirrored.
    pub async fn restore_rollout(
        &self,
        store: &Arc<Store>,
        thread_id: &str,
    ) -> Result<bool, StoreError> {
        let mirrored = self.threads.mirrored_rollout(thread_id).await;
        let Some(text) = self.counted(mirrored)? else {
            return Ok(false);
        };
        let store = store.clone();
        let thread_id = thread_id.to_string();
        let written = tokio::task::spawn_blocking(move || write_rollout(&store, &thread_id, &text))
            .await
            .map_err(|error| std::io::Error::other(error.to_string()));
        match written {
            Ok(Ok(())) => Ok(true),
            Ok(Err(error)) | Err(error) => {
                tracing::error!(%error, "cannot rebuild a rollout from Redis");
                Ok(false)
            }
        }
    }
}

/// Writes `text` as the rollout of `thread_id`: over the existing file when this home has
/// one, else where a new one would go (the `created_at` of its header names the folder).
fn write_rollout(store: &Store, thread_id: &str, text: &[u8]) -> std::io::Result<()> {
    let path = match store.load(thread_id) {
        Ok(thread) => thread.meta.rollout_path,
        Err(_) => {
            let first = text.split(|byte| *byte == b'\n').next().unwrap_or_default();
            let header: serde_json::Value = serde_json::from_slice(first)?;
            let created_at = header
                .pointer("/payload/meta/created_at")
                .or_else(|| header.pointer("/payload/created_at"))
                .and_then(serde_json::Value::as_i64)
                .ok_or_else(|| std::io::Error::other("mirrored rollout has no header"))?;
            store.rollout_path_for(thread_id, created_at)
        }
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let temporary = path.with_extension("jsonl.restoring");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, &path)?;
    // Index the file (a thread new to this home gets its row now).
    store
        .load(thread_id)
        .map(|_| ())
        .map_err(|error| std::io::Error::other(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_are_recognised() {
        assert!(is_header(
            br#"{"timestamp":"2026-11-24T10:00:00.000Z","type":"session_meta","payload":{}}"#
        ));
        assert!(!is_header(
            br#"{"timestamp":"2026-11-24T10:00:00.000Z","type":"response_item","payload":{"text":"\"type\":\"session_meta\""}}"#
        ));
    }

    #[test]
    fn rollout_file_names_give_their_thread() {
        let path = Path::new(
            "/h/sessions/2026/11/24/rollout-2026-11-24T10-00-00-019ab2c4-0000-7000-8000-000000000001.jsonl",
        );
        assert_eq!(
            thread_of_rollout(path).as_deref(),
            Some("019ab2c4-0000-7000-8000-000000000001")
        );
        assert_eq!(thread_of_rollout(Path::new("/x/short.jsonl")), None);
    }

    #[tokio::test]
    async fn memory_leases_are_taken_renewed_and_refused_to_another_node() {
        let threads = MemoryThreadStore::default();
        let ttl = Duration::from_secs(60);
        assert_eq!(
            threads.take_lease("t", "a", ttl).await.unwrap(),
            Lease::Taken
        );
        assert_eq!(
            threads.take_lease("t", "a", ttl).await.unwrap(),
            Lease::Renewed
        );
        assert_eq!(
            threads.take_lease("t", "b", ttl).await.unwrap(),
            Lease::Elsewhere
        );
        assert_eq!(
            threads.lease_holder("t").await.unwrap().as_deref(),
            Some("a")
        );
        assert_eq!(
            threads.take_lease("u", "a", Duration::ZERO).await.unwrap(),
            Lease::Taken
        );
        assert_eq!(threads.lease_holder("u").await.unwrap(), None);
        assert_eq!(threads.mirrored_rollout("t").await.unwrap(), None);
    }
}
