//! Distributed HTTP MCP sessions: many `tandem mcp-server --http … --redis URL` nodes behind
//! one address, sharing sessions and streams through Redis.
//!
//! A session splits into serializable metadata ([`store::SessionStore`]) and live
//! connections. Any node serves any request: a node that does not hold the session in
//! memory rebuilds it from the metadata. Messages for the standalone (GET) stream are
//! numbered and kept in an [`events::EventStore`] and published on the session's channel of
//! the [`bus::StreamManager`], so they reach whichever node holds the GET connection and a
//! `Last-Event-ID` resume works on any node. Answers to server→client requests and
//! cancellations that land on another node than the one waiting for them are forwarded to
//! that node ([`Forward`]); a DELETE is broadcast to every node.
//!
//! Without `--redis` (or `[mcp.distributed]`) the server is a cluster of one node
//! ([`Cluster::local`]): the same stores and stream manager, implemented in memory, so that
//! the HTTP transport has one code path.

pub mod bus;
pub mod events;
pub mod follow;
pub mod metrics;
pub mod outbound;
pub mod store;
pub mod tasks;
pub mod threads;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use app_server_protocol::jsonrpc::RequestId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::mcp::distributed::bus::{MemoryStreamManager, RedisStreamManager, StreamManager};
use crate::mcp::distributed::events::{EventStore, MemoryEventStore, RedisEventStore};
use crate::mcp::distributed::metrics::Metrics;
use crate::mcp::distributed::store::{MemorySessionStore, RedisSessionStore, SessionStore};
use crate::mcp::distributed::threads::{MemoryThreadStore, RedisThreadStore, ThreadStore};

/// A boxed future, for the object-safe store traits.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A shared-store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Redis refused the command or cannot be reached.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// A stored value does not decode.
    #[error("stored value: {0}")]
    Decode(#[from] serde_json::Error),
}

/// `[mcp.distributed]` and `--redis`.
#[derive(Debug, Clone)]
pub struct DistributedOptions {
    /// `redis://[USER:PASSWORD@]HOST:PORT/DB`, or `rediss://…` for TLS; shown only through
    /// [`redacted_url`].
    pub url: String,
    /// Prefix of every key and channel.
    pub prefix: String,
    /// Idle time after which a session's shared metadata expires.
    pub session_ttl: Duration,
    /// Events kept per session stream for `Last-Event-ID` (approximate cap).
    pub event_stream_len: usize,
    /// Life of a thread lease without renewal.
    pub lease_ttl: Duration,
    /// This node's name in the cluster (letters, digits, `-`, `_`).
    pub node_id: String,
    /// Rollout lines mirrored per thread (approximate cap; the header is kept apart).
    pub rollout_stream_len: usize,
    /// Life of a thread's mirrored rollout after its last line.
    pub rollout_ttl: Duration,
}

impl DistributedOptions {
    /// The options from `[mcp.distributed]` of the effective config, with `--redis` taking
    /// precedence for the URL; `None` when neither names a Redis server.
    pub fn from_config(
        effective: &toml::Table,
        redis_flag: Option<&str>,
        session_ttl: Duration,
    ) -> anyhow::Result<Option<Self>> {
        let table = effective
            .get("mcp")
            .and_then(|mcp| mcp.get("distributed"))
            .and_then(toml::Value::as_table);
        let text = |key: &str| {
            table
                .and_then(|table| table.get(key))
                .and_then(toml::Value::as_str)
                .map(str::to_string)
        };
        let duration = |key: &str, default: Duration| -> anyhow::Result<Duration> {
            match text(key) {
                Some(value) => humantime::parse_duration(&value).map_err(|error| {
                    anyhow::anyhow!("[mcp.distributed] {key} = `{value}`: {error}")
                }),
                None => Ok(default),
            }
        };
        let Some(url) = redis_flag.map(str::to_string).or_else(|| text("url")) else {
            return Ok(None);
        };
        let count = |key: &str, default: usize| -> anyhow::Result<usize> {
            match table.and_then(|table| table.get(key)) {
                Some(value) => value
                    .as_integer()
                    .and_then(|value| usize::try_from(value).ok())
                    .filter(|value| *value > 0)
                    .ok_or_else(|| {
                        anyhow::anyhow!("[mcp.distributed] {key} must be a positive integer")
                    }),
                None => Ok(default),
            }
        };
        let event_stream_len = count("event_stream_len", 10_000)?;
        let rollout_stream_len = count("rollout_stream_len", 20_000)?;
        let node_id = match text("node_id") {
            Some(node_id) => node_id,
            None => default_node_id(),
        };
        if node_id.is_empty()
            || !node_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            anyhow::bail!(
                "[mcp.distributed] node_id `{node_id}` must be letters, digits, `-` or `_`"
            );
        }
        Ok(Some(Self {
            url,
            prefix: text("key_prefix").unwrap_or_else(|| "tandem".to_string()),
            session_ttl: duration("session_ttl", session_ttl)?,
            event_stream_len,
            lease_ttl: duration("lease_ttl", Duration::from_secs(15))?,
            node_id,
            rollout_stream_len,
            rollout_ttl: duration("rollout_ttl", Duration::from_secs(7 * 24 * 3600))?,
        }))
    }
}

fn default_node_id() -> String {
    let mut bytes = [0u8; 4];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut bytes));
    if random.is_err() {
        bytes = std::process::id().to_be_bytes();
    }
    let suffix: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("node-{suffix}")
}

/// Key and channel names under one prefix.
#[derive(Debug, Clone)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    /// Names under `prefix`.
    pub fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.to_string(),
        }
    }

    /// The session's metadata.
    pub fn session(&self, id: &str) -> String {
        format!("{}:session:{id}", self.prefix)
    }

    /// The session's standalone-stream events.
    pub fn events(&self, id: &str) -> String {
        format!("{}:events:{id}", self.prefix)
    }

    /// The session's event sequence counter.
    pub fn sequence(&self, id: &str) -> String {
        format!("{}:seq:{id}", self.prefix)
    }

    /// The last event handed to a GET connection of the session.
    pub fn delivered(&self, id: &str) -> String {
        format!("{}:delivered:{id}", self.prefix)
    }

    /// The holder (`<node>/<n>`) of the session's one GET stream, cluster-wide.
    pub fn get_holder(&self, id: &str) -> String {
        format!("{}:get:{id}", self.prefix)
    }

    /// The session's client requests in flight: request id → node.
    pub fn calls(&self, id: &str) -> String {
        format!("{}:calls:{id}", self.prefix)
    }

    /// The pub/sub channel of the session's standalone stream.
    pub fn stream_channel(&self, id: &str) -> String {
        format!("{}:stream:{id}", self.prefix)
    }

    /// The session id of a [`Keys::stream_channel`].
    pub fn session_of_stream_channel<'a>(&self, channel: &'a str) -> Option<&'a str> {
        channel
            .strip_prefix(self.prefix.as_str())?
            .strip_prefix(":stream:")
    }

    /// The channel of messages for one node.
    pub fn node_channel(&self, node: &str) -> String {
        format!("{}:node:{node}", self.prefix)
    }

    /// The channel every node listens to.
    pub fn control_channel(&self) -> String {
        format!("{}:control", self.prefix)
    }

    /// A task of the Tasks extension (`crate::mcp::tasks`).
    pub fn task(&self, id: &str) -> String {
        format!("{}:task:{id}", self.prefix)
    }

    /// The mark of a used `requestState`, by its question id (`crate::mcp::request_state`).
    pub fn used_state(&self, question: &str) -> String {
        format!("{}:used-state:{question}", self.prefix)
    }
}

/// A message from one node to another (or to all).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Forward {
    /// The client's answer to a server→client request that this node sent.
    Response {
        /// The session.
        session: String,
        /// Our request's id.
        id: RequestId,
        /// `Ok(result)` or `Err(error)`.
        outcome: Result<Value, Value>,
    },
    /// `notifications/cancelled` for a client request this node runs.
    Cancel {
        /// The session.
        session: String,
        /// The whole notification.
        notification: Value,
    },
    /// A client request for the node that owns the thread it names (`codex-reply`).
    Call {
        /// The session.
        session: String,
        /// The client request's id.
        id: RequestId,
        /// Its method.
        method: String,
        /// The whole request.
        message: Value,
        /// The node whose client waits for the request's messages.
        reply_node: String,
    },
    /// A message of a forwarded request, for the node whose client waits for it; `None`
    /// when the request ended without a response (cancelled).
    Deliver {
        /// The session.
        session: String,
        /// The client request's id.
        id: RequestId,
        /// The message.
        message: Option<Value>,
    },
    /// Resume POST stream `last_event_id` names, which the receiving node holds, and send
    /// its events to `reply_node` as [`Forward::ResumeStep`]s tagged `tag`.
    Resume {
        /// The session.
        session: String,
        /// The client's `Last-Event-ID` (`<stream>/<seq>`).
        last_event_id: String,
        /// The node whose client resumes.
        reply_node: String,
        /// Names the resume on `reply_node`.
        tag: u64,
    },
    /// One step of a [`Forward::Resume`].
    ResumeStep {
        /// The resume's tag.
        tag: u64,
        /// What happened.
        step: ResumeStep,
    },
    /// The session was deleted (or expired) on some node.
    Deleted {
        /// The session.
        session: String,
    },
    /// A 2026 request (`codex-reply`) for the node owning the thread it names, from a client
    /// of `reply_node`.
    ModernCall {
        /// Names the request on `reply_node`.
        tag: String,
        /// The principal the request acts for (checked by `reply_node`).
        principal: String,
        /// The whole request.
        message: Value,
        /// The node whose client waits for the request's messages.
        reply_node: String,
    },
    /// A message of a [`Forward::ModernCall`], for the node whose client waits for it; `None`
    /// when the request ended without a response.
    ModernDeliver {
        /// The request's tag.
        tag: String,
        /// The message.
        message: Option<Value>,
    },
    /// `tasks/update` (answers by question key) or `tasks/cancel` (`None`) of a task the
    /// receiving node runs; the sending node checked the principal.
    Task {
        /// The task.
        task_id: String,
        /// The answers, or `None` to cancel.
        responses: Option<serde_json::Map<String, Value>>,
    },
}

/// One step of a POST stream resumed on another node.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "camelCase")]
pub enum ResumeStep {
    /// The stream is resumed; events follow.
    Accepted,
    /// The node does not keep that stream.
    Refused,
    /// One event.
    Event {
        /// `<stream>/<seq>`.
        id: String,
        /// The JSON text.
        data: String,
    },
    /// The stream ended.
    End,
}

/// A resume waiting for its steps on this node.
pub struct PendingResume {
    /// Told whether the other node accepted.
    pub accepted: Option<tokio::sync::oneshot::Sender<bool>>,
    /// The resumed events for the client's connection.
    pub events: mpsc::Sender<crate::mcp::http::streams::SseEvent>,
}

/// Unix time in microseconds.
pub fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_micros() as u64)
}

/// This node's handle on the cluster (of one node without `--redis`).
pub struct Cluster {
    node_id: String,
    /// Idle time after which a session's shared metadata expires.
    pub session_ttl: Duration,
    /// Life of a thread lease or a GET stream's claim without renewal.
    pub lease_ttl: Duration,
    /// Whether this node's server→client request ids carry its name (other nodes may
    /// receive the answers).
    names_request_ids: bool,
    /// Session metadata and client requests in flight.
    pub sessions: Arc<dyn SessionStore>,
    /// Standalone-stream events.
    pub events: Arc<dyn EventStore>,
    /// Live standalone streams and the bus.
    pub streams: Arc<dyn StreamManager>,
    /// Thread leases and mirrored rollouts.
    pub threads: Arc<dyn ThreadStore>,
    /// This node's metrics.
    pub metrics: Arc<Metrics>,
    /// The Redis copy of the Tasks extension's tasks (none on a single node).
    pub task_mirror: Option<Arc<dyn crate::mcp::tasks::TaskMirror>>,
    /// The request states used on any node (none on a single node).
    pub used_states: Option<Arc<dyn crate::mcp::request_state::UsedStates>>,
    /// GET streams opened on this node, by session: their claim and their connection.
    gets: std::sync::Mutex<
        std::collections::HashMap<
            String,
            (
                String,
                mpsc::WeakSender<crate::mcp::http::streams::SseEvent>,
            ),
        >,
    >,
    /// POST streams of other nodes resumed through this one, by tag.
    pub resumes: std::sync::Mutex<std::collections::HashMap<u64, PendingResume>>,
    /// Requests run here for a client connected to another node: (session, id) → node.
    remote: std::sync::Mutex<std::collections::HashMap<(String, RequestId), String>>,
}

/// How long one Redis command may take before it counts as failed.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);

/// The life of a thread lease or a GET stream's claim on a server without `--redis`.
const LOCAL_LEASE_TTL: Duration = Duration::from_secs(15);

/// The parts of a [`Cluster`] that differ between Redis and memory.
struct Backends {
    node_id: String,
    session_ttl: Duration,
    lease_ttl: Duration,
    names_request_ids: bool,
    sessions: Arc<dyn SessionStore>,
    events: Arc<dyn EventStore>,
    streams: Arc<dyn StreamManager>,
    threads: Arc<dyn ThreadStore>,
    task_mirror: Option<Arc<dyn crate::mcp::tasks::TaskMirror>>,
    used_states: Option<Arc<dyn crate::mcp::request_state::UsedStates>>,
}

impl Cluster {
    fn with(backends: Backends, metrics: Arc<Metrics>) -> Arc<Self> {
        Arc::new(Cluster {
            node_id: backends.node_id,
            session_ttl: backends.session_ttl,
            lease_ttl: backends.lease_ttl,
            names_request_ids: backends.names_request_ids,
            sessions: backends.sessions,
            events: backends.events,
            streams: backends.streams,
            threads: backends.threads,
            task_mirror: backends.task_mirror,
            used_states: backends.used_states,
            metrics,
            remote: std::sync::Mutex::new(std::collections::HashMap::new()),
            resumes: std::sync::Mutex::new(std::collections::HashMap::new()),
            gets: std::sync::Mutex::new(std::collections::HashMap::new()),
        })
    }

    /// The cluster of this process alone (no `--redis`): sessions idle for `session_ttl`
    /// expire, and each session keeps the last `replay_buffer` events of its GET stream;
    /// messages for this node arrive on the returned receiver.
    pub fn local(
        session_ttl: Duration,
        replay_buffer: usize,
        metrics: Arc<Metrics>,
    ) -> (Arc<Cluster>, mpsc::Receiver<Forward>) {
        let (streams, received) = MemoryStreamManager::new();
        let streams = Arc::new(streams);
        let events = Arc::new(MemoryEventStore::new(replay_buffer, streams.clone()));
        let backends = Backends {
            node_id: "local".to_string(),
            session_ttl,
            lease_ttl: LOCAL_LEASE_TTL,
            names_request_ids: false,
            sessions: Arc::new(MemorySessionStore::new(events.clone())),
            events,
            streams,
            threads: Arc::new(MemoryThreadStore::default()),
            task_mirror: None,
            used_states: None,
        };
        (Self::with(backends, metrics), received)
    }

    /// Connects to Redis (failing at once when it cannot be reached) and starts the bus;
    /// forwarded messages arrive on the returned receiver.
    pub async fn connect(
        options: DistributedOptions,
        metrics: Arc<Metrics>,
    ) -> anyhow::Result<(Arc<Cluster>, mpsc::Receiver<Forward>)> {
        let shown_url = redacted_url(&options.url);
        if options.url.starts_with("rediss:") {
            // `rediss://` speaks TLS through rustls, which needs its process-wide provider.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        let client = redis::Client::open(options.url.as_str())
            .map_err(|error| anyhow::anyhow!("invalid Redis URL `{shown_url}`: {error}"))?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(COMMAND_TIMEOUT))
            .set_response_timeout(Some(COMMAND_TIMEOUT))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_secs(1));
        let connect = async {
            let mut connection = client.get_connection_manager_with_config(config).await?;
            let _: String = redis::cmd("PING").query_async(&mut connection).await?;
            Ok::<_, redis::RedisError>(connection)
        };
        let connection = match tokio::time::timeout(COMMAND_TIMEOUT * 2, connect).await {
            Ok(Ok(connection)) => connection,
            Ok(Err(error)) => {
                anyhow::bail!("cannot reach Redis at {shown_url}: {error}")
            }
            Err(_) => anyhow::bail!("cannot reach Redis at {shown_url}: timed out"),
        };
        let keys = Keys::new(&options.prefix);
        let streams = Arc::new(RedisStreamManager::new(
            connection.clone(),
            keys.clone(),
            metrics.clone(),
        ));
        let (forwards, received) = mpsc::channel(1024);
        tokio::spawn(streams.clone().run(
            client.clone(),
            keys.node_channel(&options.node_id),
            forwards,
        ));
        let modern = Arc::new(tasks::RedisTaskMirror::new(
            connection.clone(),
            keys.clone(),
            streams.clone(),
        ));
        let backends = Backends {
            task_mirror: Some(modern.clone()),
            used_states: Some(modern),
            node_id: options.node_id.clone(),
            session_ttl: options.session_ttl,
            lease_ttl: options.lease_ttl,
            names_request_ids: true,
            sessions: Arc::new(RedisSessionStore::new(connection.clone(), keys.clone())),
            events: Arc::new(RedisEventStore::new(
                connection.clone(),
                keys.clone(),
                options.event_stream_len,
                options.session_ttl,
            )),
            streams,
            threads: Arc::new(RedisThreadStore::new(
                connection,
                keys,
                &options,
                metrics.clone(),
            )),
        };
        let cluster = Self::with(backends, metrics);
        tracing::info!(node_id = %cluster.node_id, url = %shown_url, "joined the cluster");
        Ok((cluster, received))
    }

    /// This node's id.
    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    /// Counts a failed store operation and passes the result on.
    pub fn counted<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(error) = &result {
            self.metrics.redis_errors.inc();
            tracing::warn!(%error, "redis operation failed");
        }
        result
    }

    /// Appends `message` to `session`'s standalone stream and publishes it.
    pub async fn publish_standalone(&self, session: &str, message: &Value) {
        let started = Instant::now();
        let text = message.to_string();
        let appended = self.events.append(session, &text).await;
        if self.counted(appended).is_ok() {
            self.metrics.observe_publish(started.elapsed());
        } else {
            tracing::warn!(session_id = %session, "standalone message lost: Redis unavailable");
        }
    }

    /// Sends `forward` to `node` (to every node when `node` is `None`).
    pub async fn forward(&self, node: Option<&str>, forward: &Forward) -> Result<(), StoreError> {
        let forwarded = self.streams.forward(node, forward).await;
        self.counted(forwarded)
    }

    /// The claim of `session`'s last GET stream on this node, when its client has gone
    /// (the stream may not have noticed and released it yet).
    pub fn closed_get(&self, session: &str) -> Option<String> {
        let gets = tandem_core::sync::lock(&self.gets);
        let (holder, sender) = gets.get(session)?;
        let open = sender.upgrade().is_some_and(|sender| !sender.is_closed());
        (!open).then(|| holder.clone())
    }

    /// Records the GET stream of `session` opened here under claim `holder`.
    pub fn set_open_get(
        &self,
        session: &str,
        holder: &str,
        sender: &mpsc::Sender<crate::mcp::http::streams::SseEvent>,
    ) {
        let mut gets = tandem_core::sync::lock(&self.gets);
        gets.retain(|_, (_, sender)| sender.upgrade().is_some_and(|sender| !sender.is_closed()));
        gets.insert(
            session.to_string(),
            (holder.to_string(), sender.downgrade()),
        );
    }

    /// Runs request `id` of `session` here for a client on `node`: its messages go there.
    pub fn add_remote(&self, session: &str, id: &RequestId, node: &str) {
        tandem_core::sync::lock(&self.remote)
            .insert((session.to_string(), id.clone()), node.to_string());
    }

    /// The node waiting for request `id` of `session`, when it is not this one.
    pub fn remote_node(&self, session: &str, id: &RequestId) -> Option<String> {
        let remote = tandem_core::sync::lock(&self.remote);
        // Asked for every message a session sends: no key is built while nothing is remote.
        if remote.is_empty() {
            return None;
        }
        remote.get(&(session.to_string(), id.clone())).cloned()
    }

    /// Forgets a remote request.
    pub fn remove_remote(&self, session: &str, id: &RequestId) {
        tandem_core::sync::lock(&self.remote).remove(&(session.to_string(), id.clone()));
    }

    /// Records that client request `id` of `session` runs on `node`; with `post_stream`,
    /// also numbers the POST stream this node opens for it (session-wide, so that its
    /// `Last-Event-ID` names one stream on the whole cluster) and records this node as the
    /// one holding that stream's events.
    pub async fn register_call(
        &self,
        session: &str,
        id: &RequestId,
        node: &str,
        post_stream: bool,
    ) -> Result<Option<u64>, StoreError> {
        let call = serde_json::to_string(id)?;
        let stream_node = post_stream.then_some(self.node_id());
        let registered = self
            .sessions
            .register_call(session, &call, node, stream_node, self.session_ttl)
            .await;
        self.counted(registered)
    }

    /// The node holding POST stream `number` of `session`, while it is kept.
    pub async fn stream_node(
        &self,
        session: &str,
        number: u64,
    ) -> Result<Option<String>, StoreError> {
        let node = self.sessions.stream_node(session, number).await;
        self.counted(node)
    }

    /// Forgets client request `id` of `session`.
    pub async fn unregister_call(&self, session: &str, id: &RequestId) {
        let Ok(call) = serde_json::to_string(id) else {
            return;
        };
        let unregistered = self.sessions.unregister_call(session, &call).await;
        let _ = self.counted(unregistered);
    }

    /// The node running client request `id` of `session`.
    pub async fn call_node(
        &self,
        session: &str,
        id: &RequestId,
    ) -> Result<Option<String>, StoreError> {
        let call = serde_json::to_string(id)?;
        let node = self.sessions.call_node(session, &call).await;
        self.counted(node)
    }

    /// The id prefix of this node's server→client requests, `<node>:`, when answers may
    /// reach other nodes; a single node keeps plain integer ids.
    pub fn request_id_prefix(&self) -> Option<String> {
        self.names_request_ids
            .then(|| format!("{}:", self.node_id()))
    }
}

/// `url` with the password of its user part (`scheme://USER:PASSWORD@HOST…`) written as
/// `****`, for messages and logs.
pub fn redacted_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let Some((user_info, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    match user_info.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:****@{host}{path}"),
        None => url.to_string(),
    }
}

/// The node that sent server→client request `id` (ids look like `<node>:<n>`).
pub fn node_of_request(id: &RequestId) -> Option<&str> {
    match id {
        RequestId::String(text) => text.rsplit_once(':').map(|(node, _)| node),
        RequestId::Integer(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_come_from_the_flag_or_the_config_table() {
        let none =
            DistributedOptions::from_config(&toml::Table::new(), None, Duration::from_secs(60))
                .unwrap();
        assert!(none.is_none());
        let table: toml::Table = toml::from_str(
            "[mcp.distributed]\nurl = \"redis://h:1/0\"\nkey_prefix = \"p\"\nlease_ttl = \"3s\"\nnode_id = \"a-1\"\nevent_stream_len = 5\nrollout_stream_len = 7\nrollout_ttl = \"1h\"\n",
        )
        .unwrap();
        let options = DistributedOptions::from_config(&table, None, Duration::from_secs(60))
            .unwrap()
            .unwrap();
        assert_eq!(options.url, "redis://h:1/0");
        assert_eq!(options.prefix, "p");
        assert_eq!(options.lease_ttl, Duration::from_secs(3));
        assert_eq!(options.event_stream_len, 5);
        assert_eq!(options.node_id, "a-1");
        assert_eq!(options.rollout_stream_len, 7);
        assert_eq!(options.rollout_ttl, Duration::from_secs(3600));
        let flagged =
            DistributedOptions::from_config(&table, Some("redis://x/1"), Duration::from_secs(60))
                .unwrap()
                .unwrap();
        assert_eq!(flagged.url, "redis://x/1");
        let bad: toml::Table =
            toml::from_str("[mcp.distributed]\nurl = \"redis://h\"\nnode_id = \"a b\"\n").unwrap();
        assert!(DistributedOptions::from_config(&bad, None, Duration::from_secs(1)).is_err());
    }

    #[test]
    fn passwords_in_redis_urls_are_masked() {
        assert_eq!(
            redacted_url("rediss://tandem:s3cret@redis.internal:6380/2"),
            "rediss://tandem:****@redis.internal:6380/2"
        );
        assert_eq!(
            redacted_url("redis://:p@ss:w@rd@h:1/0"),
            "redis://:****@h:1/0"
        );
        assert_eq!(redacted_url("redis://h:1/0"), "redis://h:1/0");
        assert_eq!(redacted_url("redis://user@h"), "redis://user@h");
        assert_eq!(redacted_url("not a url"), "not a url");
    }

    #[test]
    fn request_ids_name_their_node() {
        assert_eq!(
            node_of_request(&RequestId::String("node-a:3".into())),
            Some("node-a")
        );
        assert_eq!(node_of_request(&RequestId::Integer(3)), None);
        let keys = Keys::new("t");
        assert_eq!(
            keys.session_of_stream_channel(&keys.stream_channel("abc")),
            Some("abc")
        );
    }
}
