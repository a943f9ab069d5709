//! The HTTP/1 accept loop of both network front ends (`mcp-server --http` and
//! `app-server --listen ws:// | unix://`), with the limits that keep half-open connections
//! from locking legitimate clients out: at most `max_connections` connections at once (one
//! more is closed as soon as it is accepted) and a header-read timeout (a connection that has
//! not sent a whole request head within it is closed, also between two requests of a
//! kept-alive connection).
//!
//! A connection counts until its socket closes: an upgraded WebSocket holds its place for as
//! long as it is open. `axum::serve` offers none of this, so connections are served by hyper's
//! HTTP/1 builder here, with upgrades, and each request carries the `ConnectInfo` of its
//! connection's peer.

use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Extension;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio_util::task::TaskTracker;

/// Limits on the connections of one server.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Connections served at once; more are closed as soon as they are accepted.
    pub max_connections: usize,
    /// Time a connection has to send a whole request head (also between two requests).
    pub header_read_timeout: Duration,
}

/// What a front end counts of its connections (its metrics); every method does nothing by
/// default.
pub trait ConnectionEvents: Send + Sync + 'static {
    /// A connection was accepted and is served.
    fn opened(&self) {}
    /// A served connection's socket closed.
    fn closed(&self) {}
    /// A connection was closed at once: the server already serves `max_connections`.
    fn refused(&self) {}
}

/// Counts nothing.
pub struct Uncounted;

impl ConnectionEvents for Uncounted {}

/// A listening socket the loop accepts from.
pub trait Accept: Send + 'static {
    /// One accepted connection.
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;

    /// The next connection.
    fn accept(&self) -> impl Future<Output = io::Result<Self::Io>> + Send;
}

impl Accept for TcpListener {
    type Io = TcpStream;

    async fn accept(&self) -> io::Result<TcpStream> {
        let (socket, _) = TcpListener::accept(self).await?;
        // Without TCP_NODELAY, Nagle's algorithm and delayed ACKs add ~40 ms to every reply
        // written in several pieces (SSE events, WebSocket frames).
        let _ = socket.set_nodelay(true);
        Ok(socket)
    }
}

impl Accept for UnixListener {
    type Io = UnixStream;

    async fn accept(&self) -> io::Result<UnixStream> {
        let (socket, _) = UnixListener::accept(self).await?;
        Ok(socket)
    }
}

/// `--max-connections`, lowered to half the process's open-file limit when that is smaller:
/// every connection holds a descriptor, and sessions, rollouts and model connections need
/// theirs, so that a full server still accepts its next legitimate client. `command` names
/// the server in the message that says so.
#[allow(
    clippy::print_stderr,
    reason = "a lowered limit is told on stderr to whoever started the server"
)]
pub fn connection_cap(requested: usize, command: &str) -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` through a valid pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return requested;
    }
    let allowed = usize::try_from(limit.rlim_cur / 2)
        .unwrap_or(usize::MAX)
        .max(1);
    if allowed >= requested {
        return requested;
    }
    eprintln!(
        "tandem {command}: --max-connections lowered from {requested} to {allowed}: this process may open {} files (ulimit -n)",
        limit.rlim_cur
    );
    allowed
}

/// Serves `router` on `listener` until `shutdown` completes, then lets open connections end
/// their current response and waits for them (an upgraded connection is its handler's to
/// end). Each request carries `ConnectInfo(peer(&socket))` of its connection.
pub async fn serve<A, P>(
    listener: A,
    router: Router,
    peer: impl Fn(&A::Io) -> P + Send + 'static,
    limits: ConnectionLimits,
    events: Arc<dyn ConnectionEvents>,
    shutdown: impl Future<Output = ()>,
) where
    A: Accept,
    P: Clone + Send + Sync + 'static,
{
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
            Ok(socket) => socket,
            Err(error) => {
                // Out of file descriptors and the like: wait a little rather than spin, so
                // that closing connections can free what the next accept needs.
                tracing::warn!(%error, "cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            events.refused();
            tracing::debug!(
                max_connections = limits.max_connections,
                "connection limit reached; closing a new connection"
            );
            drop(socket);
            continue;
        };
        let info = ConnectInfo(peer(&socket));
        let socket = Counted::new(socket, permit, events.clone());
        let service = TowerToHyperService::new(router.clone().layer(Extension(info)));
        let builder = builder.clone();
        let mut closed = closed.clone();
        connections.spawn(async move {
            let connection = builder
                .serve_connection(TokioIo::new(socket), service)
                .with_upgrades();
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
        });
    }
    drop(listener);
    let _ = closing.send(true);
    connections.close();
    connections.wait().await;
}

/// A served connection's socket: holds its place among `max_connections` until it closes,
/// after an upgrade too.
struct Counted<I> {
    io: I,
    _permit: OwnedSemaphorePermit,
    events: Arc<dyn ConnectionEvents>,
}

impl<I> Counted<I> {
    fn new(io: I, permit: OwnedSemaphorePermit, events: Arc<dyn ConnectionEvents>) -> Self {
        events.opened();
        Self {
            io,
            _permit: permit,
            events,
        }
    }
}

impl<I> Drop for Counted<I> {
    fn drop(&mut self) {
        self.events.closed();
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Counted<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(context, buffer)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Counted<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(context, buffer)
    }

    fn poll_flush(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(context)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(context)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(context, buffers)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}
