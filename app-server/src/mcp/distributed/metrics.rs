//! `GET /metrics`: what an operator of one or many HTTP nodes watches, in the Prometheus text
//! format (OpenMetrics flavour) through `prometheus-client`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The Content-Type of [`Metrics::render`]'s output.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The counters of one HTTP node.
pub struct Metrics {
    registry: Registry,
    /// MCP sessions this node holds in memory.
    pub sessions_open: Gauge<i64, std::sync::atomic::AtomicI64>,
    /// `tools/call` and other requests being answered by this node.
    pub calls_in_flight: Gauge<i64, std::sync::atomic::AtomicI64>,
    /// SSE events written to clients by this node.
    pub events_sent: Counter<u64, AtomicU64>,
    /// Time to append one message to the shared event stream (seconds).
    pub bus_publish_seconds: Histogram,
    /// Time from a message's append to its delivery to a client stream on any node (seconds).
    pub bus_deliver_seconds: Histogram,
    /// Redis commands that failed.
    pub redis_errors: Counter<u64, AtomicU64>,
    /// Thread leases this node holds.
    pub leases_held: Gauge<i64, std::sync::atomic::AtomicI64>,
    /// HTTP connections this node serves.
    pub connections_open: Gauge<i64, std::sync::atomic::AtomicI64>,
    /// HTTP connections closed at once because `--max-connections` were open.
    pub connections_refused: Counter<u64, AtomicU64>,
    /// `initialize` requests refused because `--max-sessions` sessions were open.
    pub sessions_refused: Counter<u64, AtomicU64>,
}

impl Metrics {
    /// A registry with every metric at zero.
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("tandem_mcp");
        let sessions_open = Gauge::default();
        let calls_in_flight = Gauge::default();
        let events_sent = Counter::default();
        let leases_held = Gauge::default();
        let redis_errors = Counter::default();
        let connections_open = Gauge::default();
        let connections_refused = Counter::default();
        let sessions_refused = Counter::default();
        // 50 µs … ~0.8 s, doubling.
        let buckets =
            || prometheus_client::metrics::histogram::exponential_buckets(0.00005, 2.0, 15);
        let bus_publish_seconds = Histogram::new(buckets());
        let bus_deliver_seconds = Histogram::new(buckets());
        registry.register(
            "sessions_open",
            "MCP sessions held in memory by this node",
            sessions_open.clone(),
        );
        registry.register(
            "calls_in_flight",
            "client requests being answered by this node",
            calls_in_flight.clone(),
        );
        registry.register(
            "events_sent",
            "SSE events written to clients by this node",
            events_sent.clone(),
        );
        registry.register(
            "bus_publish_seconds",
            "time to append one message to a session's shared event stream",
            bus_publish_seconds.clone(),
        );
        registry.register(
            "bus_deliver_seconds",
            "time from a message's append to its delivery to a client stream",
            bus_deliver_seconds.clone(),
        );
        registry.register(
            "redis_errors",
            "Redis commands that failed",
            redis_errors.clone(),
        );
        registry.register(
            "leases_held",
            "thread leases held by this node",
            leases_held.clone(),
        );
        registry.register(
            "connections_open",
            "HTTP connections served by this node",
            connections_open.clone(),
        );
        registry.register(
            "connections_refused",
            "HTTP connections closed at once because the connection limit was reached",
            connections_refused.clone(),
        );
        registry.register(
            "sessions_refused",
            "initialize requests refused because the session limit was reached",
            sessions_refused.clone(),
        );
        Self {
            registry,
            sessions_open,
            calls_in_flight,
            events_sent,
            bus_publish_seconds,
            bus_deliver_seconds,
            redis_errors,
            leases_held,
            connections_open,
            connections_refused,
            sessions_refused,
        }
    }

    /// Records a bus publish that took `elapsed`.
    pub fn observe_publish(&self, elapsed: Duration) {
        self.bus_publish_seconds.observe(elapsed.as_secs_f64());
    }

    /// The text exposition of every metric.
    pub fn render(&self) -> String {
        let mut text = String::new();
        if let Err(error) = encode(&mut text, &self.registry) {
            tracing::error!(%error, "cannot encode the metrics");
        }
        text
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// Counts one request in flight while alive.
pub struct InFlight(Arc<Metrics>);

impl InFlight {
    /// Counts a request until the guard drops.
    pub fn new(metrics: &Arc<Metrics>) -> Self {
        metrics.calls_in_flight.inc();
        Self(metrics.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.calls_in_flight.dec();
    }
}

impl crate::http_accept::ConnectionEvents for Metrics {
    fn opened(&self) {
        self.connections_open.inc();
    }

    fn closed(&self) {
        self.connections_open.dec();
    }

    fn refused(&self) {
        self.connections_refused.inc();
    }
}
