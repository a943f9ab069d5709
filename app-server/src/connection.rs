//! One app-server connection's request pipeline, whatever carries its lines (stdio, a
//! WebSocket frame on a listener): decoding, worker permits, the dispatcher, and the orderly
//! end of the connection.
//!
//! The reader never waits: a decoded request takes a worker permit (a small separate pool
//! serves [`CONTROL_METHODS`]) and goes through a bounded queue to a dispatcher that runs it on
//! its own task; a request that finds no free worker is answered at once with `-32001`, and
//! client responses and notifications bypass the queue, so that approval answers and
//! `command/exec/terminate` still arrive while every worker is busy. `initialize` is handled
//! before the next message is looked at, so clients may pipeline after it.

use std::sync::Arc;

use app_server_protocol::jsonrpc::RequestId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::outgoing::OutgoingSender;
use crate::processor::{Processor, overloaded};
use crate::rpc_error;
use crate::shutdown::{DRAIN, Shutdown, ShutdownGuard};
use crate::transport::{DecodeError, IncomingMessage, decode_line};

/// Workers reserved for [`CONTROL_METHODS`].
const CONTROL_WORKERS: usize = 16;

/// Requests that only signal work already running; they never wait long and must get through
/// while every ordinary worker waits on a command.
const CONTROL_METHODS: &[&str] = &[
    "command/exec/terminate",
    "command/exec/write",
    "command/exec/resize",
    "turn/interrupt",
];

/// A decoded request waiting for the dispatcher, with the worker permit it runs under
/// (none for `initialize`, which the dispatcher runs itself).
struct QueuedRequest {
    id: RequestId,
    method: String,
    value: serde_json::Value,
    permit: Option<OwnedSemaphorePermit>,
}

/// The request pipeline of one connection.
pub struct Connection {
    processor: Arc<Processor>,
    outgoing: Arc<OutgoingSender>,
    queue: mpsc::Sender<QueuedRequest>,
    workers: Arc<Semaphore>,
    control_workers: Arc<Semaphore>,
    handlers: TaskTracker,
    dispatcher: JoinHandle<()>,
    /// Fired when the connection ends before the server does: its handlers stop at once.
    closed: CancellationToken,
    max_line_bytes: usize,
}

impl Connection {
    /// Starts the dispatcher of a connection served by `processor`, answering through
    /// `outgoing`, with `queue_capacity` ordinary workers. `guard` ties the dispatcher and
    /// the handlers to the server's shutdown.
    pub fn start(
        processor: Arc<Processor>,
        outgoing: Arc<OutgoingSender>,
        queue_capacity: usize,
        max_line_bytes: usize,
        guard: ShutdownGuard,
    ) -> Connection {
        let queue_capacity = queue_capacity.max(1);
        let (queue, mut queued) = mpsc::channel::<QueuedRequest>(queue_capacity + 1);
        let handlers = TaskTracker::new();
        let closed = CancellationToken::new();
        let dispatcher = {
            let processor = processor.clone();
            let handlers = handlers.clone();
            let outgoing = outgoing.clone();
            let closed = closed.clone();
            tokio::spawn(async move {
                while let Some(QueuedRequest {
                    id,
                    method,
                    value,
                    permit,
                }) = queued.recv().await
                {
                    let Some(permit) = permit else {
                        // `initialize` completes before the next request is looked at, so
                        // that a client may pipeline requests right after it.
                        processor.handle_request(id, &method, value).await;
                        continue;
                    };
                    let processor = processor.clone();
                    let outgoing = outgoing.clone();
                    let guard = guard.clone();
                    let closed = closed.clone();
                    handlers.spawn(async move {
                        tokio::select! {
                            () = processor.handle_request(id.clone(), &method, value) => {}
                            // Dropping the handler drops its work: an index refresh stops at
                            // its next check, with nothing half-committed.
                            () = guard.abandoned() => {
                                let error = rpc_error::internal_error(
                                    "the server is shutting down",
                                );
                                outgoing.send_error(id, error).await;
                            }
                            // Nobody is left to read the answer.
                            () = closed.cancelled() => {}
                        }
                        drop(permit);
                        drop(guard);
                    });
                }
                drop(guard);
            })
        };
        Connection {
            processor,
            outgoing,
            queue,
            workers: Arc::new(Semaphore::new(queue_capacity)),
            // Requests that only signal something already running get workers of their own,
            // so that a connection whose workers all wait on commands can still stop them.
            control_workers: Arc::new(Semaphore::new(CONTROL_WORKERS)),
            handlers,
            dispatcher,
            closed,
            max_line_bytes,
        }
    }

    /// Handles one input line (or text frame).
    pub async fn on_line(&self, line: &str) {
        match decode_line(line) {
            Ok(IncomingMessage::Request { id, method, value }) => {
                let permit = if method == "initialize" {
                    None
                } else {
                    let pool = if CONTROL_METHODS.contains(&method.as_str()) {
                        &self.control_workers
                    } else {
                        &self.workers
                    };
                    match pool.clone().try_acquire_owned() {
                        Ok(permit) => Some(permit),
                        Err(_) => {
                            self.outgoing.send_error(id, overloaded()).await;
                            return;
                        }
                    }
                };
                let request = QueuedRequest {
                    id,
                    method,
                    value,
                    permit,
                };
                if let Err(error) = self.queue.try_send(request) {
                    let request = error.into_inner();
                    self.outgoing.send_error(request.id, overloaded()).await;
                }
            }
            Ok(IncomingMessage::Notification { method, .. }) => {
                self.processor.handle_notification(&method)
            }
            Ok(IncomingMessage::Response { id, outcome }) => {
                self.processor.handle_response(id, outcome)
            }
            Err(DecodeError::NotJson(error)) => {
                tracing::warn!(%error, "ignoring an input line that is not JSON");
            }
            Err(DecodeError::NotAMessage(reason)) => {
                tracing::warn!(reason, "ignoring an input line that is not a message");
            }
        }
    }

    /// Answers an over-long line, which is most likely a real request whose client would
    /// otherwise wait forever, with the id recovered from its start.
    pub async fn on_overlong(&self, id: Option<RequestId>) {
        self.outgoing
            .send_line_error(id, rpc_error::line_too_long(self.max_line_bytes))
            .await;
    }

    /// Ends the connection at the server's shutdown: queued requests are answered, those
    /// still running after [`DRAIN`] are abandoned, and the connection's commands killed.
    pub async fn finish_at_shutdown(self, shutdown: &Shutdown) {
        let Connection {
            processor,
            queue,
            handlers,
            dispatcher,
            ..
        } = self;
        drop(queue);
        let _ = dispatcher.await;
        handlers.close();
        // Commands started by `command/exec` die with the connection, so the handlers waiting
        // on them finish at once.
        processor.close_utilities();
        if tokio::time::timeout(DRAIN, handlers.wait()).await.is_err() {
            tracing::info!("abandoning the requests still running");
            shutdown.abandon();
            handlers.wait().await;
        }
    }

    /// Ends a connection whose client left while the server goes on: its running handlers
    /// are dropped and its commands killed; the turns it started keep running.
    pub async fn finish_closed(self) {
        let Connection {
            processor,
            queue,
            handlers,
            dispatcher,
            closed,
            ..
        } = self;
        drop(queue);
        closed.cancel();
        let _ = dispatcher.await;
        handlers.close();
        processor.close_utilities();
        handlers.wait().await;
    }
}
