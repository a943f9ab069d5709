//! How the servers stop: the first SIGINT or SIGTERM starts a graceful shutdown (each front end
//! stops reading, interrupts its turns and drains its writer); a second signal ends the process
//! at once, and so does a graceful shutdown that has not finished within [`GRACE`]. A front end
//! whose shutdown starts at stdin EOF arms the same deadline ([`arm_deadline`]).
//!
//! The deadline runs on a plain thread, not a task, so that it fires even when every async
//! worker is busy; [`finish`] bounds what is left after the front end returns (blocking-pool work
//! such as an embedding batch or a long index query) by the same grace period.

use std::time::Duration;

use tokio::runtime::Runtime;

/// How long a graceful shutdown may take before the process exits anyway.
pub const GRACE: Duration = Duration::from_secs(5);

/// Exit status of a forced exit: the shell's convention for "ended by a signal".
const FORCED_EXIT_STATUS: i32 = 130;

/// Resolves on the first SIGINT or SIGTERM, and arms the forced exit: a second signal, or
/// [`GRACE`] elapsing, ends the process.
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
    arm_deadline();
    tokio::spawn(async move {
        tokio::select! {
            _ = terminate.recv() => {}
            _ = interrupt.recv() => {}
        }
        tracing::warn!("second signal received; exiting at once");
        std::process::exit(FORCED_EXIT_STATUS);
    });
}

/// Starts the thread that ends the process if shutdown outlasts [`GRACE`] (once: later calls
/// keep the first deadline).
pub fn arm_deadline() {
    static ARMED: std::sync::Once = std::sync::Once::new();
    ARMED.call_once(start_deadline_thread);
}

fn start_deadline_thread() {
    let spawned = std::thread::Builder::new()
        .name("shutdown-deadline".to_string())
        .spawn(|| {
            std::thread::sleep(GRACE);
            tracing::warn!(
                grace_secs = GRACE.as_secs(),
                "shutdown did not finish in time; exiting"
            );
            std::process::exit(FORCED_EXIT_STATUS);
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "could not start the shutdown deadline thread");
    }
}

/// Drops `runtime` after the front end has returned, waiting at most [`GRACE`] for tasks and
/// blocking-pool work that are still running (they are abandoned, and the process exits).
pub fn finish(runtime: Runtime) {
    runtime.shutdown_timeout(GRACE);
}
