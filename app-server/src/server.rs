//! `tandem app-server`: wires stdio, the processor and the engine together and runs until
//! stdin closes or a signal arrives.
//!
//! Shutdown: stdin EOF (or SIGINT/SIGTERM) stops reading; queued requests are still answered,
//! running turns are interrupted and their rollouts flushed, then the writer drains and the
//! process exits 0.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Semaphore, mpsc};
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::engine::Engine;
use crate::outgoing::OutgoingSender;
use crate::processor::approvals::ClientApprover;
use crate::processor::{Processor, overloaded};
use crate::store::Store;
use crate::transport::stdio::{read_lines, write_lines};
use crate::transport::{DecodeError, IncomingMessage, decode_line};

/// Capacity of the writer's queue of serialized lines.
const OUTPUT_QUEUE: usize = 4096;

/// Serves the app-server protocol on stdin/stdout.
pub async fn serve_stdio(
    config: Config,
    history: Option<Arc<tandem_history::service::HistoryService>>,
) -> anyhow::Result<()> {
    let store = Arc::new(Store::open(&config.home)?);
    let max_line_bytes = config.app_server.max_line_bytes;
    let queue_capacity = config.app_server.request_queue_capacity.max(1);

    let (lines, written) = mpsc::channel::<String>(OUTPUT_QUEUE);
    let writer = tokio::spawn(write_lines(tokio::io::stdout(), written));
    let outgoing = Arc::new(OutgoingSender::new(lines));
    let approver = Arc::new(ClientApprover::new(outgoing.clone()));
    let sink = crate::history::ingesting_sink(approver.clone(), history.as_ref(), &store);
    let engine = Engine::new(config, store, sink, approver);
    let processor =
        Arc::new(Processor::new(outgoing.clone(), engine.clone()).with_history(history));

    // Reader → processor queue. Requests beyond the queue get "overloaded"; notifications
    // and responses wait for room, so none is lost.
    let (queue, mut queued) = mpsc::channel::<IncomingMessage>(queue_capacity);
    let workers = Arc::new(Semaphore::new(queue_capacity));
    let handlers = TaskTracker::new();
    let dispatcher = {
        let processor = processor.clone();
        let handlers = handlers.clone();
        tokio::spawn(async move {
            while let Some(message) = queued.recv().await {
                match message {
                    // `initialize` completes before the next message is looked at, so that a
                    // client may pipeline requests right after it.
                    IncomingMessage::Request { id, method, value } if method == "initialize" => {
                        processor.handle_request(id, &method, value).await;
                    }
                    IncomingMessage::Request { id, method, value } => {
                        let Ok(permit) = workers.clone().acquire_owned().await else {
                            break;
                        };
                        let processor = processor.clone();
                        handlers.spawn(async move {
                            processor.handle_request(id, &method, value).await;
                            drop(permit);
                        });
                    }
                    IncomingMessage::Notification { method, .. } => {
                        processor.handle_notification(&method)
                    }
                    IncomingMessage::Response { id, outcome } => {
                        processor.handle_response(id, outcome)
                    }
                }
            }
        })
    };

    let reading =
        read_lines(
            tokio::io::stdin(),
            max_line_bytes,
            async |line: String| match decode_line(&line) {
                Ok(IncomingMessage::Request { id, method, value }) => {
                    if let Err(error) =
                        queue.try_send(IncomingMessage::Request { id, method, value })
                    {
                        let message = error.into_inner();
                        if let IncomingMessage::Request { id, .. } = message {
                            outgoing.send_error(id, overloaded()).await;
                        }
                    }
                }
                Ok(other) => {
                    let _ = queue.send(other).await;
                }
                Err(DecodeError::NotJson(error)) => {
                    tracing::warn!(%error, "ignoring an input line that is not JSON");
                }
                Err(DecodeError::NotAMessage(reason)) => {
                    tracing::warn!(reason, "ignoring an input line that is not a message");
                }
            },
        );
    tokio::select! {
        result = reading => {
            if let Err(error) = result {
                tracing::warn!(%error, "stdin read failed; shutting down");
            }
        }
        () = shutdown_signal() => tracing::info!("signal received; shutting down"),
    }

    drop(queue);
    let _ = dispatcher.await;
    handlers.close();
    // Commands started by `command/exec` die with the connection, so the handlers waiting on
    // them finish at once.
    processor.close_utilities();
    // Requests already queued are answered, but a handler waiting on the client (an approval)
    // must not hold the process forever.
    let _ = tokio::time::timeout(Duration::from_secs(5), handlers.wait()).await;
    outgoing.cancel_all();
    engine.shutdown().await;
    drop(processor);
    drop(engine);
    drop(outgoing);
    match tokio::time::timeout(Duration::from_secs(5), writer).await {
        Ok(Ok(Ok(()))) | Err(_) => {}
        Ok(Ok(Err(error))) => tracing::debug!(%error, "stdout closed"),
        Ok(Err(error)) => tracing::error!(%error, "writer task failed"),
    }
    Ok(())
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut terminate), Ok(mut interrupt)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        std::future::pending::<()>().await;
        return;
    };
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
}
