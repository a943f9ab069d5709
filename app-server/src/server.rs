//! `tandem app-server`: wires stdio, the processor and the engine together and runs until
//! stdin closes or a signal arrives.
//!
//! Shutdown ([`crate::shutdown`]): stdin EOF or SIGINT/SIGTERM begins it, and from then on the
//! process ends within the grace period. Reading stops; queued requests are still answered, and
//! those still running after [`DRAIN`] (a long `index/*` call, a handler waiting on the client)
//! are answered with an error and their work dropped; running turns are interrupted and their
//! rollouts flushed; then the writer drains, every task holding a shutdown guard has ended, and
//! the process exits 0.

use std::sync::Arc;
use std::time::Duration;

use app_server_protocol::jsonrpc::RequestId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::task::TaskTracker;

use crate::outgoing::OutgoingSender;
use crate::processor::approvals::ClientApprover;
use crate::processor::{Processor, overloaded};
use crate::rpc_error;
use crate::shutdown::{DRAIN, Shutdown};
use crate::transport::stdio::{read_lines, write_lines};
use crate::transport::{DecodeError, IncomingMessage, decode_line};
use tandem_core::access::{ClientPolicy, FrontEnd};
use tandem_core::account::AccountState;
use tandem_core::audit::AuditLog;
use tandem_core::config::Config;
use tandem_core::engine::Engine;
use tandem_core::principal::Principal;
use tandem_core::store::Store;

/// Capacity of the writer's queue of serialized lines. With `command/exec` deltas of up to
/// 8 KiB (about 11 KiB of JSON) this bounds the queue near 12 MiB.
const OUTPUT_QUEUE: usize = 1024;

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

/// Serves the app-server protocol on stdin/stdout.
pub async fn serve_stdio(
    config: Config,
    account: Arc<AccountState>,
    os_release: crate::compat::requests::OsRelease,
    history: Option<Arc<crate::history::History>>,
) -> anyhow::Result<()> {
    let store = Arc::new(Store::open(&config.home)?);
    tandem_core::redact::register_known_secrets(store.redactor(), &config, &account);
    let max_line_bytes = config.app_server.max_line_bytes;
    let queue_capacity = config.app_server.request_queue_capacity.max(1);

    let shutdown = Shutdown::start();
    let (lines, written) = mpsc::channel::<String>(OUTPUT_QUEUE);
    let writer = {
        let guard = shutdown.guard();
        tokio::spawn(async move {
            let written = write_lines(crate::transport::pipes::stdout(), written).await;
            drop(guard);
            written
        })
    };
    let outgoing = Arc::new(OutgoingSender::new(lines));
    let approver = Arc::new(ClientApprover::new(outgoing.clone()));
    let sink = crate::history::ingesting_sink(approver.clone(), history.as_ref(), &store);
    // The IDE's own process: the local user, who owns the process, under the operator's
    // `[clients]` with the app-server's defaults.
    let access = ClientPolicy::resolve(&config, FrontEnd::AppServerStdio);
    let engine = Engine::new(
        config,
        store,
        account,
        sink,
        approver.clone(),
        Principal::local_user(),
        access,
    );
    let audit = AuditLog::open(&engine.config().home);
    engine.set_audit(audit.clone(), FrontEnd::AppServerStdio.name());
    let processor = Arc::new(
        Processor::new(outgoing.clone(), engine.clone(), os_release)
            .with_history(history)
            .with_conversations(approver.conversations())
            // Moved, not cloned: the approver holds the outgoing sender, and the writer only
            // finishes once every holder is gone.
            .with_approver(approver),
    );

    // Reader → dispatcher queue of requests, each holding the worker permit it will run
    // with. The reader never waits: a request that finds no free worker is answered
    // `-32001` at once, and client responses and notifications bypass the queue, so that
    // approval answers and `command/exec/terminate` still arrive while every worker is busy.
    let (queue, mut queued) = mpsc::channel::<QueuedRequest>(queue_capacity + 1);
    let workers = Arc::new(Semaphore::new(queue_capacity));
    // Requests that only signal something already running get workers of their own, so that
    // a connection whose workers all wait on commands can still stop them.
    let control_workers = Arc::new(Semaphore::new(CONTROL_WORKERS));
    let handlers = TaskTracker::new();
    let dispatcher = {
        let processor = processor.clone();
        let handlers = handlers.clone();
        let outgoing = outgoing.clone();
        let guard = shutdown.guard();
        tokio::spawn(async move {
            while let Some(QueuedRequest {
                id,
                method,
                value,
                permit,
            }) = queued.recv().await
            {
                match permit {
                    // `initialize` completes before the next request is looked at, so that a
                    // client may pipeline requests right after it.
                    None => processor.handle_request(id, &method, value).await,
                    Some(permit) => {
                        let processor = processor.clone();
                        let outgoing = outgoing.clone();
                        let guard = guard.clone();
                        handlers.spawn(async move {
                            tokio::select! {
                                () = processor.handle_request(id.clone(), &method, value) => {}
                                // Dropping the handler drops its work: an index refresh stops
                                // at its next check, with nothing half-committed.
                                () = guard.abandoned() => {
                                    let error = rpc_error::internal_error(
                                        "the server is shutting down",
                                    );
                                    outgoing.send_error(id, error).await;
                                }
                            }
                            drop(permit);
                            drop(guard);
                        });
                    }
                }
            }
            drop(guard);
        })
    };

    let reading = read_lines(
        crate::transport::pipes::stdin(),
        max_line_bytes,
        async |line: String| match decode_line(&line) {
            Ok(IncomingMessage::Request { id, method, value }) => {
                let permit = if method == "initialize" {
                    None
                } else {
                    let pool = if CONTROL_METHODS.contains(&method.as_str()) {
                        &control_workers
                    } else {
                        &workers
                    };
                    match pool.clone().try_acquire_owned() {
                        Ok(permit) => Some(permit),
                        Err(_) => {
                            outgoing.send_error(id, overloaded()).await;
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
                if let Err(error) = queue.try_send(request) {
                    let request = error.into_inner();
                    outgoing.send_error(request.id, overloaded()).await;
                }
            }
            Ok(IncomingMessage::Notification { method, .. }) => {
                processor.handle_notification(&method)
            }
            Ok(IncomingMessage::Response { id, outcome }) => processor.handle_response(id, outcome),
            Err(DecodeError::NotJson(error)) => {
                tracing::warn!(%error, "ignoring an input line that is not JSON");
            }
            Err(DecodeError::NotAMessage(reason)) => {
                tracing::warn!(reason, "ignoring an input line that is not a message");
            }
        },
        // Unlike a malformed line, an over-long one is answered: it is most likely a real
        // request whose client would otherwise wait forever.
        async |id: Option<RequestId>| {
            outgoing
                .send_line_error(id, rpc_error::line_too_long(max_line_bytes))
                .await;
        },
    );
    tokio::select! {
        result = reading => {
            if let Err(error) = result {
                tracing::warn!(%error, "stdin read failed; shutting down");
            }
        }
        () = shutdown.begun() => {}
    }
    // stdin EOF begins the shutdown as a signal does: the process ends within the grace
    // period from here, whatever still runs.
    shutdown.begin();

    drop(queue);
    let _ = dispatcher.await;
    handlers.close();
    // Commands started by `command/exec` die with the connection, so the handlers waiting on
    // them finish at once.
    processor.close_utilities();
    // Requests already queued are answered, but a long one (an index refresh, a handler
    // waiting on the client) must not hold the process: past `DRAIN` it is abandoned.
    if tokio::time::timeout(DRAIN, handlers.wait()).await.is_err() {
        tracing::info!("abandoning the requests still running");
        shutdown.abandon();
        handlers.wait().await;
    }
    outgoing.pending().cancel_all();
    engine.shutdown().await;
    drop(processor);
    drop(engine);
    drop(outgoing);
    match writer.await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::debug!(%error, "stdout closed"),
        Err(error) => tracing::error!(%error, "writer task failed"),
    }
    // The audit records of the connection reach the file before the process ends.
    let _ = tokio::task::spawn_blocking(move || audit.flush(Duration::from_secs(1))).await;
    // Every task that held a guard (the dispatcher, the handlers, the writer) has ended.
    shutdown.complete().await;
    Ok(())
}
