//! `tandem app-server`: wires stdio, the processor and the engine together and runs until
//! stdin closes or a signal arrives.
//!
//! Shutdown ([`crate::shutdown`]): stdin EOF or SIGINT/SIGTERM begins it, and from then on the
//! process ends within the grace period. Reading stops; queued requests are still answered, and
//! those still running after [`crate::shutdown::DRAIN`] (a long `index/*` call, a handler waiting on the client)
//! are answered with an error and their work dropped; running turns are interrupted and their
//! rollouts flushed; then the writer drains, every task holding a shutdown guard has ended, and
//! the process exits 0.

use std::sync::Arc;
use std::time::Duration;

use app_server_protocol::jsonrpc::RequestId;
use tokio::sync::mpsc;

use crate::connection::Connection;
use crate::outgoing::OutgoingSender;
use crate::processor::Processor;
use crate::processor::approvals::ClientApprover;
use crate::shutdown::Shutdown;
use crate::transport::stdio::{read_lines, write_lines};
use tandem_core::access::{ClientPolicy, FrontEnd};
use tandem_core::account::AccountState;
use tandem_core::audit::AuditLog;
use tandem_core::config::Config;
use tandem_core::engine::Engine;
use tandem_core::principal::Principal;
use tandem_core::store::Store;

/// Capacity of a connection writer's queue of serialized lines. With `command/exec` deltas of
/// up to 8 KiB (about 11 KiB of JSON) this bounds the queue near 12 MiB.
pub const OUTPUT_QUEUE: usize = 1024;

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
    let connection = Connection::start(
        processor.clone(),
        outgoing.clone(),
        queue_capacity,
        max_line_bytes,
        shutdown.guard(),
    );

    let reading = read_lines(
        crate::transport::pipes::stdin(),
        max_line_bytes,
        async |line: String| connection.on_line(&line).await,
        async |id: Option<RequestId>| connection.on_overlong(id).await,
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

    connection.finish_at_shutdown(&shutdown).await;
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
