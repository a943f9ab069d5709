//! A standalone (GET) stream served from the shared event store: what the client missed
//! first, then live events from the bus, each exactly once and in sequence order.
//!
//! Event ids are `0/<seq>` (stream 0 is the standalone stream), so a client that lost its
//! node resumes on any other with `Last-Event-ID`. Without one, the stream starts after the
//! last event handed to an earlier GET connection of the session.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tracing::Instrument;

use crate::mcp::distributed::bus::BusItem;
use crate::mcp::distributed::events::StoredEvent;
use crate::mcp::distributed::{Cluster, StoreError, now_micros};
use crate::mcp::http::streams::SseEvent;

static NEXT_HOLDER: AtomicU64 = AtomicU64::new(0);

/// Opens `session`'s standalone stream on this node, after sequence `after` (or after the
/// last delivered event). `Ok(None)` when the session already has a GET stream on any node
/// (a resume with `after` takes it over instead). The claim is renewed while the stream
/// lives and released when it ends; a dead node's claim expires after the lease TTL.
pub async fn attach(
    cluster: &Arc<Cluster>,
    session: &str,
    after: Option<u64>,
    capacity: usize,
) -> Result<Option<mpsc::Receiver<SseEvent>>, StoreError> {
    let holder = format!(
        "{}/{}",
        cluster.node_id(),
        NEXT_HOLDER.fetch_add(1, Ordering::Relaxed)
    );
    let closed = cluster.closed_get(session);
    let claimed = cluster
        .events
        .claim_reader(
            session,
            &holder,
            after.is_some(),
            closed.as_deref(),
            cluster.lease_ttl,
        )
        .await;
    if !cluster.counted(claimed)? {
        return Ok(None);
    }
    let released = |cluster: &Arc<Cluster>, holder: String| {
        let cluster = cluster.clone();
        let session = session.to_string();
        tokio::spawn(async move { hold(&cluster, &session, &holder, false).await });
    };
    // Subscribe before reading the backlog, so that nothing falls between the two.
    let registration = cluster.streams.register(session).await;
    let after = match after {
        Some(after) => after,
        None => {
            let saved = cluster.events.delivered(session).await;
            match cluster.counted(saved) {
                Ok(saved) => saved.unwrap_or(0),
                Err(error) => {
                    cluster.streams.remove(session, &registration);
                    released(cluster, holder);
                    return Err(error);
                }
            }
        }
    };
    let backlog = match cluster.counted(cluster.events.replay_after(session, after).await) {
        Ok(backlog) => backlog,
        Err(error) => {
            cluster.streams.remove(session, &registration);
            released(cluster, holder);
            return Err(error);
        }
    };
    let (sender, events) = mpsc::channel(capacity.max(1));
    cluster.set_open_get(session, &holder, &sender);
    let mut follower = Follower {
        holder,
        cluster: cluster.clone(),
        session: session.to_string(),
        sender,
        last: after,
        saved: after,
        saved_at: Instant::now(),
    };
    let span = tracing::info_span!(
        "mcp_get_stream",
        session_id = %session,
        node = %cluster.node_id(),
        after,
    );
    tokio::spawn(
        async move {
            let mut registration = registration;
            if follower.deliver_all(backlog).await {
                follower.follow(&mut registration.items).await;
            }
            follower.save().await;
            follower
                .cluster
                .streams
                .remove(&follower.session, &registration);
            hold(
                &follower.cluster,
                &follower.session,
                &follower.holder,
                false,
            )
            .await;
            tracing::debug!(delivered = follower.last, "GET stream ended");
        }
        .instrument(span),
    );
    Ok(Some(events))
}

/// Renews (`renew`) or releases `holder`'s claim on `session`'s GET stream; `false` when the
/// claim is no longer `holder`'s. A store error counts as still held.
async fn hold(cluster: &Cluster, session: &str, holder: &str, renew: bool) -> bool {
    let ttl = renew.then_some(cluster.lease_ttl);
    let held = cluster.events.hold_reader(session, holder, ttl).await;
    cluster.counted(held).unwrap_or(true)
}

struct Follower {
    holder: String,
    cluster: Arc<Cluster>,
    session: String,
    sender: mpsc::Sender<SseEvent>,
    last: u64,
    saved: u64,
    saved_at: Instant,
}

impl Follower {
    async fn follow(&mut self, items: &mut mpsc::Receiver<BusItem>) {
        let period = (self.cluster.lease_ttl / 3).max(Duration::from_millis(10));
        let mut renewals = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        loop {
            let item = tokio::select! {
                item = items.recv() => item,
                () = self.sender.closed() => return,
                _ = renewals.tick() => {
                    if !hold(&self.cluster, &self.session, &self.holder, true).await {
                        tracing::info!("another GET stream of the session took over; ending this one");
                        return;
                    }
                    continue;
                }
            };
            let delivered = match item {
                // Ended: the session is gone or the stream fell behind.
                None => return,
                Some(BusItem::Event {
                    seq,
                    data,
                    published_micros,
                }) => {
                    if seq <= self.last {
                        continue;
                    }
                    if seq == self.last + 1 {
                        let latency = now_micros().saturating_sub(published_micros);
                        self.cluster
                            .metrics
                            .bus_deliver_seconds
                            .observe(latency as f64 / 1e6);
                        self.deliver(seq, data).await
                    } else {
                        self.catch_up().await
                    }
                }
                Some(BusItem::Resync) => self.catch_up().await,
            };
            if !delivered {
                return;
            }
            if self.saved_at.elapsed() >= self.cluster.events.save_every() {
                self.save().await;
            }
        }
    }

    /// Fills a gap from the event store; `false` when the client is gone.
    async fn catch_up(&mut self) -> bool {
        let replayed = self
            .cluster
            .events
            .replay_after(&self.session, self.last)
            .await;
        match self.cluster.counted(replayed) {
            Ok(events) => self.deliver_all(events).await,
            // Redis is away; the next event or resync tries again.
            Err(_) => true,
        }
    }

    async fn deliver_all(&mut self, events: Vec<StoredEvent>) -> bool {
        for (seq, data) in events {
            if seq > self.last && !self.deliver(seq, data).await {
                return false;
            }
        }
        true
    }

    async fn deliver(&mut self, seq: u64, data: String) -> bool {
        let event = SseEvent {
            id: format!("0/{seq}"),
            data,
        };
        if self.sender.send(event).await.is_err() {
            return false;
        }
        self.last = seq;
        true
    }

    /// Saves the delivered position for the next GET without `Last-Event-ID`.
    async fn save(&mut self) {
        if self.saved == self.last {
            return;
        }
        let saved = self
            .cluster
            .events
            .save_delivered(&self.session, self.last, self.cluster.session_ttl)
            .await;
        if self.cluster.counted(saved).is_ok() {
            self.saved = self.last;
            self.saved_at = Instant::now();
        }
    }
}
