//! [`StreamManager`]: live standalone (GET) streams, and the message bus that reaches them
//! from any node.
//!
//! [`MemoryStreamManager`] hands events to streams of the same process (a server without
//! `--redis`, the only node), and messages for a node to that process.
//! [`RedisStreamManager`] keeps one pub/sub connection per node, subscribed to the node's
//! own channel (forwarded answers and cancellations), the control channel (sessions deleted
//! anywhere) and one channel per session whose GET stream this node holds. Pub/sub loses
//! what is published while a connection is down, so after a reconnect (and whenever a
//! sequence number is skipped) a stream catches up from the [`EventStore`](super::events).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;

use crate::mcp::distributed::metrics::Metrics;
use crate::mcp::distributed::{BoxFuture, Forward, Keys, StoreError};
use tandem_core::sync::lock;

/// What a registered stream receives.
#[derive(Debug, Clone, PartialEq)]
pub enum BusItem {
    /// One event of the session's standalone stream.
    Event {
        /// Its sequence number.
        seq: u64,
        /// Its JSON text.
        data: String,
        /// When it was published (Unix µs), for the delivery latency.
        published_micros: u64,
    },
    /// Events may have been missed (the bus reconnected): catch up from the event store.
    Resync,
}

/// A live stream's place in a [`StreamManager`], to remove exactly that registration.
pub struct Registration {
    /// The events for the stream.
    pub items: mpsc::Receiver<BusItem>,
    number: u64,
}

static NEXT_REGISTRATION: AtomicU64 = AtomicU64::new(0);

/// How many bus items a registered stream may have queued before it is dropped (its client
/// then resumes with `Last-Event-ID`).
const REGISTRATION_CAPACITY: usize = 4096;

/// Live standalone streams by session.
pub trait StreamManager: Send + Sync + 'static {
    /// Registers the live stream of `session` on this node (replacing an older one).
    fn register<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Registration>;
    /// Removes `registration` if it is still `session`'s.
    fn remove(&self, session: &str, registration: &Registration);
    /// Ends the live stream of `session` on this node, whichever it is.
    fn end(&self, session: &str);
    /// Ends every live stream on this node (the server is shutting down).
    fn end_all(&self);
    /// Sends `forward` to `node` (to every node when `node` is `None`).
    fn forward<'a>(
        &'a self,
        node: Option<&'a str>,
        forward: &'a Forward,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
}

type Registered = Mutex<HashMap<String, (u64, mpsc::Sender<BusItem>)>>;

fn register_in(registered: &Registered, session: &str) -> Registration {
    let (sender, items) = mpsc::channel(REGISTRATION_CAPACITY);
    let number = NEXT_REGISTRATION.fetch_add(1, Ordering::Relaxed);
    lock(registered).insert(session.to_string(), (number, sender));
    Registration { items, number }
}

fn remove_in(registered: &Registered, session: &str, registration: &Registration) -> bool {
    let mut registered = lock(registered);
    let same = registered
        .get(session)
        .is_some_and(|(number, _)| *number == registration.number);
    if same {
        registered.remove(session);
    }
    same
}

fn deliver_in(registered: &Registered, session: &str, item: BusItem) -> bool {
    let mut registered = lock(registered);
    let Some((_, sender)) = registered.get(session) else {
        return false;
    };
    match sender.try_send(item) {
        Ok(()) => true,
        Err(_) => {
            // Too far behind (or gone): drop it; the client resumes from its last event id.
            tracing::info!(session_id = %session, "standalone stream too far behind; ending it");
            registered.remove(session);
            false
        }
    }
}

/// Streams of one process, which is the only node: a message for a node is its own.
pub struct MemoryStreamManager {
    registered: Registered,
    forwards: mpsc::Sender<Forward>,
}

impl MemoryStreamManager {
    /// A manager whose messages for a node arrive on the returned receiver.
    pub fn new() -> (Self, mpsc::Receiver<Forward>) {
        let (forwards, received) = mpsc::channel(1024);
        let manager = Self {
            registered: Mutex::new(HashMap::new()),
            forwards,
        };
        (manager, received)
    }

    /// Hands `item` to the live stream of `session`, if it has one here.
    pub fn deliver(&self, session: &str, item: BusItem) {
        deliver_in(&self.registered, session, item);
    }
}

impl StreamManager for MemoryStreamManager {
    fn register<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Registration> {
        Box::pin(async move { register_in(&self.registered, session) })
    }

    fn remove(&self, session: &str, registration: &Registration) {
        remove_in(&self.registered, session, registration);
    }

    fn end(&self, session: &str) {
        lock(&self.registered).remove(session);
    }

    fn end_all(&self) {
        lock(&self.registered).clear();
    }

    fn forward<'a>(
        &'a self,
        _node: Option<&'a str>,
        forward: &'a Forward,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            // As on the bus, a full queue is not waited for by the sender.
            if self.forwards.try_send(forward.clone()).is_err() {
                tracing::warn!("message for this node dropped: its queue is full");
            }
            Ok(())
        })
    }
}

/// Streams reached through Redis pub/sub.
pub struct RedisStreamManager {
    registered: Registered,
    sink: Mutex<Option<redis::aio::PubSubSink>>,
    connection: redis::aio::ConnectionManager,
    keys: Keys,
    metrics: Arc<Metrics>,
}

impl RedisStreamManager {
    /// A manager publishing through `connection`; [`RedisStreamManager::run`] receives.
    pub fn new(
        connection: redis::aio::ConnectionManager,
        keys: Keys,
        metrics: Arc<Metrics>,
    ) -> Self {
        Self {
            registered: Mutex::new(HashMap::new()),
            sink: Mutex::new(None),
            connection,
            keys,
            metrics,
        }
    }

    /// Keeps the node's subscription alive for as long as the process runs: reconnects with
    /// a growing delay, resubscribes, tells every registered stream to catch up, and hands
    /// forwarded messages to `forwards`.
    pub async fn run(
        self: Arc<Self>,
        client: redis::Client,
        node_channel: String,
        forwards: mpsc::Sender<Forward>,
    ) {
        let control = self.keys.control_channel();
        let mut delay = Duration::from_millis(100);
        loop {
            match client.get_async_pubsub().await {
                Ok(pubsub) => {
                    let (mut sink, mut stream) = pubsub.split();
                    *lock(&self.sink) = Some(sink.clone());
                    let mut channels = vec![control.clone(), node_channel.clone()];
                    let sessions: Vec<String> = lock(&self.registered).keys().cloned().collect();
                    channels.extend(
                        sessions
                            .iter()
                            .map(|session| self.keys.stream_channel(session)),
                    );
                    match sink.subscribe(&channels).await {
                        Ok(()) => {
                            delay = Duration::from_millis(100);
                            tracing::info!("subscribed to the Redis bus");
                            for session in &sessions {
                                deliver_in(&self.registered, session, BusItem::Resync);
                            }
                            while let Some(message) = stream.next().await {
                                self.dispatch(&message, &control, &node_channel, &forwards)
                                    .await;
                            }
                            tracing::warn!("lost the Redis bus connection; reconnecting");
                        }
                        Err(error) => {
                            tracing::warn!(%error, "cannot subscribe to the Redis bus");
                        }
                    }
                    *lock(&self.sink) = None;
                    self.metrics.redis_errors.inc();
                }
                Err(error) => {
                    self.metrics.redis_errors.inc();
                    tracing::debug!(%error, "cannot reach Redis for the bus");
                }
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(Duration::from_secs(2));
        }
    }

    async fn dispatch(
        &self,
        message: &redis::Msg,
        control: &str,
        node_channel: &str,
        forwards: &mpsc::Sender<Forward>,
    ) {
        let channel = message.get_channel_name();
        let Ok(payload) = message.get_payload::<String>() else {
            return;
        };
        if channel == control || channel == node_channel {
            match serde_json::from_str::<Forward>(&payload) {
                // Waiting here pushes back on the subscription (Redis buffers for a slow
                // subscriber, up to its pub/sub output limit).
                Ok(forward) => {
                    if forwards.send(forward).await.is_err() {
                        tracing::debug!("forwarded message after the server stopped");
                    }
                }
                Err(error) => tracing::warn!(%error, "malformed bus message"),
            }
            return;
        }
        let Some(session) = self.keys.session_of_stream_channel(channel) else {
            return;
        };
        if let Some(item) = parse_event(&payload) {
            deliver_in(&self.registered, session, item);
        }
    }

    /// Publishes `forward` on `channel`.
    async fn publish(&self, channel: &str, forward: &Forward) -> Result<(), StoreError> {
        let mut connection = self.connection.clone();
        let text = serde_json::to_string(forward)?;
        let _receivers: u64 = redis::cmd("PUBLISH")
            .arg(channel)
            .arg(text)
            .query_async(&mut connection)
            .await?;
        Ok(())
    }
}

/// `<seq> <published µs> <data>`, as the append script publishes it.
fn parse_event(payload: &str) -> Option<BusItem> {
    let (seq, rest) = payload.split_once(' ')?;
    let (micros, data) = rest.split_once(' ')?;
    Some(BusItem::Event {
        seq: seq.parse().ok()?,
        data: data.to_string(),
        published_micros: micros.parse().ok()?,
    })
}

impl StreamManager for RedisStreamManager {
    fn register<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Registration> {
        Box::pin(async move {
            let registration = register_in(&self.registered, session);
            let sink = lock(&self.sink).clone();
            if let Some(mut sink) = sink
                && let Err(error) = sink.subscribe(self.keys.stream_channel(session)).await
            {
                // The bus is reconnecting: it subscribes every registered stream and has
                // them catch up once it is back.
                tracing::warn!(%error, "cannot subscribe a session channel yet");
            }
            registration
        })
    }

    fn remove(&self, session: &str, registration: &Registration) {
        if remove_in(&self.registered, session, registration) {
            self.unsubscribe(session);
        }
    }

    fn end(&self, session: &str) {
        if lock(&self.registered).remove(session).is_some() {
            self.unsubscribe(session);
        }
    }

    fn end_all(&self) {
        lock(&self.registered).clear();
    }

    fn forward<'a>(
        &'a self,
        node: Option<&'a str>,
        forward: &'a Forward,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let channel = match node {
                Some(node) => self.keys.node_channel(node),
                None => self.keys.control_channel(),
            };
            self.publish(&channel, forward).await
        })
    }
}

impl RedisStreamManager {
    fn unsubscribe(&self, session: &str) {
        let sink = lock(&self.sink).clone();
        if let Some(mut sink) = sink {
            let channel = self.keys.stream_channel(session);
            tokio::spawn(async move {
                let _ = sink.unsubscribe(channel).await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_events_read_as_the_append_script_publishes_them() {
        let item = BusItem::Event {
            seq: 7,
            data: "{\"a\": \"b c\"}".into(),
            published_micros: 12,
        };
        assert_eq!(parse_event("7 12 {\"a\": \"b c\"}"), Some(item));
        assert_eq!(parse_event("x"), None);
    }

    #[tokio::test]
    async fn memory_streams_deliver_to_the_latest_registration_only() {
        let (manager, mut forwards) = MemoryStreamManager::new();
        let mut first = manager.register("s").await;
        let mut second = manager.register("s").await;
        let item = BusItem::Event {
            seq: 1,
            data: "{}".into(),
            published_micros: 0,
        };
        manager.deliver("s", item.clone());
        manager.deliver("t", item.clone());
        assert_eq!(second.items.recv().await, Some(item));
        assert!(first.items.try_recv().is_err());
        manager.remove("s", &first);
        manager.end("s");
        assert_eq!(second.items.recv().await, None);
        let deleted = Forward::Deleted {
            session: "s".into(),
        };
        manager.forward(None, &deleted).await.unwrap();
        assert!(matches!(
            forwards.recv().await,
            Some(Forward::Deleted { session }) if session == "s"
        ));
    }
}
