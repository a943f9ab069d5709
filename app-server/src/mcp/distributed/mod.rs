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
//! Without `--redis` (or `[mcp.distributed]`) none of this runs and the HTTP transport keeps
//! every session in one process, as before.

pub mod bus;
pub mod events;
pub mod follow;
pub mod metrics;
pub mod outbound;
pub mod store;
pub mod threads;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use app_server_protocol::jsonrpc::RequestId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::mcp::distributed::bus::RedisStreamManager;
use crate::mcp::distributed::events::{EventStore, RedisEventStore};
use crate::mcp::distributed::metrics::Metrics;
use crate::mcp::distributed::store::{RedisSessionStore, SessionStore};

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

/// This node's handle on the cluster.
pub struct Cluster {
    /// Settings.
    pub options: DistributedOptions,
    /// Key names.
    pub keys: Keys,
    /// The shared, self-reconnecting connection.
    pub connection: redis::aio::ConnectionManager,
    /// Session metadata.
    pub sessions: Arc<dyn SessionStore>,
    /// Standalone-stream events.
    pub events: Arc<dyn EventStore>,
    /// Live standalone streams and the bus.
    pub streams: Arc<RedisStreamManager>,
    /// This node's metrics.
    pub metrics: Arc<Metrics>,
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

/// Records a call: KEYS = the session's calls hash; ARGV = request id (JSON), node running
/// it, TTL in ms, `1` to number a POST stream, this node, how many stream → node entries to
/// keep. Fields `#stream` (the last stream number) and `#s<n>` (the node of stream `n`)
/// cannot collide with request ids, which are JSON. Returns the stream number (0 without).
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

/// POST streams whose node stays on record per session (each node keeps its last 64
/// finished streams resumable).
const STREAM_NODES_KEPT: u64 = 256;

/// How long one Redis command may take before it counts as failed.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);

impl Cluster {
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
        let cluster = Arc::new(Cluster {
            sessions: Arc::new(RedisSessionStore::new(connection.clone(), keys.clone())),
            events: Arc::new(RedisEventStore::new(
                connection.clone(),
                keys.clone(),
                options.event_stream_len,
                options.session_ttl,
            )),
            streams,
            keys,
            connection,
            metrics,
            options,
            remote: std::sync::Mutex::new(std::collections::HashMap::new()),
            resumes: std::sync::Mutex::new(std::collections::HashMap::new()),
            gets: std::sync::Mutex::new(std::collections::HashMap::new()),
        });
        tracing::info!(node_id = %cluster.options.node_id, url = %shown_url, "joined the cluster");
        Ok((cluster, received))
    }

    /// This node's id.
    pub fn node_id(&self) -> &str {
        &self.options.node_id
    }

    /// Counts a failed Redis operation and passes the result on.
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
        let channel = match node {
            Some(node) => self.keys.node_channel(node),
            None => self.keys.control_channel(),
        };
        let published = self.streams.publish(&channel, forward).await;
        self.counted(published)
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
        tandem_core::sync::lock(&self.remote)
            .get(&(session.to_string(), id.clone()))
            .cloned()
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
        let mut connection = self.connection.clone();
        let field = serde_json::to_string(id)?;
        let result: Result<u64, redis::RedisError> = redis::Script::new(REGISTER_CALL_SCRIPT)
            .key(self.keys.calls(session))
            .arg(field)
            .arg(node)
            .arg(self.options.session_ttl.as_millis() as u64)
            .arg(if post_stream { "1" } else { "0" })
            .arg(self.node_id())
            .arg(STREAM_NODES_KEPT)
            .invoke_async(&mut connection)
            .await;
        let number = self.counted(result.map_err(StoreError::from))?;
        Ok(post_stream.then_some(number))
    }

    /// The node holding POST stream `number` of `session`, while it is kept.
    pub async fn stream_node(
        &self,
        session: &str,
        number: u64,
    ) -> Result<Option<String>, StoreError> {
        let mut connection = self.connection.clone();
        let result: Result<Option<String>, redis::RedisError> = redis::cmd("HGET")
            .arg(self.keys.calls(session))
            .arg(format!("#s{number}"))
            .query_async(&mut connection)
            .await;
        self.counted(result.map_err(StoreError::from))
    }

    /// Forgets client request `id` of `session`.
    pub async fn unregister_call(&self, session: &str, id: &RequestId) {
        let mut connection = self.connection.clone();
        let Ok(field) = serde_json::to_string(id) else {
            return;
        };
        let result: Result<u64, redis::RedisError> = redis::cmd("HDEL")
            .arg(self.keys.calls(session))
            .arg(field)
            .query_async(&mut connection)
            .await;
        let _ = self.counted(result.map_err(StoreError::from));
    }

    /// The node running client request `id` of `session`.
    pub async fn call_node(
        &self,
        session: &str,
        id: &RequestId,
    ) -> Result<Option<String>, StoreError> {
        let mut connection = self.connection.clone();
        let field = serde_json::to_string(id)?;
        let result: Result<Option<String>, redis::RedisError> = redis::cmd("HGET")
            .arg(self.keys.calls(session))
            .arg(field)
            .query_async(&mut connection)
            .await;
        self.counted(result.map_err(StoreError::from))
    }

    /// The id prefix of this node's server→client requests: `<node>:`.
    pub fn request_id_prefix(&self) -> String {
        format!("{}:", self.node_id())
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
