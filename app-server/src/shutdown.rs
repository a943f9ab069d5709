//! How the servers stop, as mini-redis does it: one shutdown signal that every long-lived task
//! listens to, and completion observed when every task has dropped its guard.
//!
//! A front end starts one [`Shutdown`] before it serves. The shutdown begins at the first
//! SIGINT or SIGTERM, or when the front end calls [`Shutdown::begin`] (stdin EOF); from then
//! on the process ends within [`GRACE`], whatever still runs: a plain thread ends it when the
//! graceful path has not finished by then (it fires even when every async worker and the
//! blocking pool are busy, in an embedding batch or a long index query), and a second signal
//! ends it at once.
//!
//! Every long-lived task (the reader, the dispatcher, each request handler, the writer) holds
//! a [`ShutdownGuard`]: a clone of the signal and a sender of a channel whose receiver the
//! front end keeps. [`Shutdown::complete`] drops the front end's own sender and waits until
//! the channel reports no sender left, that is until every task has ended; nothing is counted
//! by hand.

use std::time::Duration;

use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long a graceful shutdown may take before the process exits anyway.
pub const GRACE: Duration = Duration::from_secs(5);

/// How long requests still running when the shutdown begins may take to finish on their own
/// before they are abandoned (answered with an error and their work dropped); well inside
/// [`GRACE`], so that the rest of the shutdown still fits.
pub const DRAIN: Duration = Duration::from_secs(2);

/// Exit status of a forced exit: the shell's convention for "ended by a signal".
const FORCED_EXIT_STATUS: i32 = 130;

/// One server's shutdown: the signal and the receiving end of the completion channel.
pub struct Shutdown {
    signal: CancellationToken,
    /// Requests still running past [`DRAIN`] are abandoned when this is cancelled.
    abandon: CancellationToken,
    /// The front end's own sender; dropped by [`Shutdown::complete`].
    done: mpsc::Sender<()>,
    completed: mpsc::Receiver<()>,
}

/// What a long-lived task holds: the shutdown signal, and a sender whose drop (when the task
/// ends) tells [`Shutdown::complete`] that the task is done.
#[derive(Clone)]
pub struct ShutdownGuard {
    signal: CancellationToken,
    abandon: CancellationToken,
    _done: mpsc::Sender<()>,
}

impl Shutdown {
    /// Starts listening for SIGINT and SIGTERM. Call it inside the runtime, before serving.
    pub fn start() -> Shutdown {
        // Nothing is ever sent: the channel only reports when its last sender is gone.
        let (done, completed) = mpsc::channel(1);
        let shutdown = Shutdown {
            signal: CancellationToken::new(),
            abandon: CancellationToken::new(),
            done,
            completed,
        };
        tokio::spawn(watch_signals(shutdown.signal.clone()));
        shutdown
    }

    /// A guard for a task that runs until the shutdown (or beyond it, while it finishes).
    pub fn guard(&self) -> ShutdownGuard {
        ShutdownGuard {
            signal: self.signal.clone(),
            abandon: self.abandon.clone(),
            _done: self.done.clone(),
        }
    }

    /// Begins the shutdown (stdin EOF, or a front end's own reason): every guard hears it, and
    /// the process ends within [`GRACE`] from now. Calling it again changes nothing.
    pub fn begin(&self) {
        begin(&self.signal);
    }

    /// Resolves once the shutdown has begun, by a signal or [`Shutdown::begin`].
    pub async fn begun(&self) {
        self.signal.cancelled().await;
    }

    /// Abandons the requests still running: their guards' [`ShutdownGuard::abandoned`]
    /// resolves.
    pub fn abandon(&self) {
        self.abandon.cancel();
    }

    /// Waits until every [`ShutdownGuard`] is gone, that is until every task that held one has
    /// ended (bounded by the deadline armed when the shutdown began).
    pub async fn complete(self) {
        let Shutdown {
            done,
            mut completed,
            ..
        } = self;
        drop(done);
        let _ = completed.recv().await;
    }
}

impl ShutdownGuard {
    /// Resolves once the shutdown has begun.
    pub async fn begun(&self) {
        self.signal.cancelled().await;
    }

    /// Resolves once the requests still running are abandoned ([`Shutdown::abandon`]).
    pub async fn abandoned(&self) {
        self.abandon.cancelled().await;
    }
}

fn begin(signal: &CancellationToken) {
    if !signal.is_cancelled() {
        arm_deadline();
        signal.cancel();
    }
}

/// The first SIGINT or SIGTERM begins the shutdown; the next one ends the process at once.
/// Runs for the life of the runtime, so that a signal during a shutdown begun at stdin EOF is
/// still heard (a handled signal that nobody reads would be ignored).
async fn watch_signals(signal: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal as listen};
    let (Ok(mut terminate), Ok(mut interrupt)) = (
        listen(SignalKind::terminate()),
        listen(SignalKind::interrupt()),
    ) else {
        tracing::warn!("cannot listen for SIGINT and SIGTERM");
        return;
    };
    next_signal(&mut terminate, &mut interrupt).await;
    if signal.is_cancelled() {
        // The shutdown had begun already (stdin EOF): this signal is the second word.
        force_exit("signal received during shutdown; exiting at once");
    }
    tracing::info!("signal received; shutting down");
    begin(&signal);
    next_signal(&mut terminate, &mut interrupt).await;
    force_exit("second signal received; exiting at once");
}

async fn next_signal(
    terminate: &mut tokio::signal::unix::Signal,
    interrupt: &mut tokio::signal::unix::Signal,
) {
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
}

fn force_exit(reason: &str) -> ! {
    tracing::warn!("{reason}");
    std::process::exit(FORCED_EXIT_STATUS);
}

/// Starts the thread that ends the process if shutdown outlasts [`GRACE`] (once: later calls
/// keep the first deadline).
fn arm_deadline() {
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

/// How long [`finish`] waits for blocking-pool work the front end no longer waits for (an
/// embedding batch of an abandoned refresh, a history ingest) before the process exits
/// without it.
const FINISH_WAIT: Duration = Duration::from_secs(1);

/// Drops `runtime` after the front end has returned, waiting at most [`FINISH_WAIT`] for tasks
/// and blocking-pool work that are still running (they are abandoned, and the process exits).
/// Everything the front end needed (rollouts flushed, audit written, replies sent) was awaited
/// before it returned.
pub fn finish(runtime: Runtime) {
    runtime.shutdown_timeout(FINISH_WAIT);
}
