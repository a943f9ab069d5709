//! The HTTP/1 accept loop of `mcp-server --http`, with the limits that keep half-open
//! connections from locking legitimate clients out: at most `max_connections` connections at
//! once (one more is closed as soon as it is accepted) and a header-read timeout (a
//! connection that has not sent a whole request head within it is closed, also between two
//! requests of a kept-alive connection).
//!
//! `axum::serve` offers neither, so connections are served by hyper's HTTP/1 builder here.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio_util::task::TaskTracker;

use crate::mcp::distributed::metrics::Metrics;

/// Limits on the connections of one server.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Connections served at once; more are closed as soon as they are accepted.
    pub max_connections: usize,
    /// Time a connection has to send a whole request head (also between two requests).
    pub header_read_timeout: Duration,
}

/// Serves `router` on `listener` until `shutdown` completes, then lets open connections end
/// their current response and waits for them.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let (closing, closed) = watch::channel(false);
    let connections = TaskTracker::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let socket = match accepted {
            Ok((socket, _)) => socket,
            Err(error) => {
                // Out of file descriptors and the like: wait a little rather than spin, so
                // that closing connections can free what the next accept needs.
                tracing::warn!(%error, "cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            metrics.connections_refused.inc();
            tracing::debug!(
                max_connections = limits.max_connections,
                "connection limit reached; closing a new connection"
            );
            drop(socket);
            continue;
        };
        // Without TCP_NODELAY, Nagle's algorithm and delayed ACKs add ~40 ms to every SSE
        // reply written in several pieces.
        let _ = socket.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let builder = builder.clone();
        let mut closed = closed.clone();
        let metrics = metrics.clone();
        connections.spawn(async move {
            metrics.connections_open.inc();
            let connection = builder.serve_connection(TokioIo::new(socket), service);
            let mut connection = pin!(connection);
            tokio::select! {
                served = connection.as_mut() => {
                    if let Err(error) = served {
                        tracing::debug!(%error, "connection ended with an error");
                    }
                }
                // Changed (to `true`) or dropped: the server is stopping either way.
                _ = closed.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            metrics.connections_open.dec();
            drop(permit);
        });
    }
    drop(listener);
    let _ = closing.send(true);
    connections.close();
    connections.wait().await;
}
