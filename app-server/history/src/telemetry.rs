//! Best-effort query and hit logs, off the answer path. A search hands its [`QueryLog`] to a
//! bounded queue and returns; one background thread writes what is queued in batches (one
//! write per batch: for ClickHouse one INSERT per table instead of two round trips per
//! search). When the queue is full the log is dropped and counted; a failed write is logged
//! and counted; neither affects an answer. Dropping the [`Telemetry`] closes the queue and
//! waits for the thread to write what is left.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::backend::{HistoryError, QueryLog};

/// Logs waiting to be written at most.
pub const QUEUE_CAPACITY: usize = 1024;

/// Logs written by one call of the sink at most.
const MAX_BATCH: usize = 256;

#[derive(Default)]
struct Counters {
    queued: AtomicU64,
    dropped: AtomicU64,
    written: AtomicU64,
    failed: AtomicU64,
    batches: AtomicU64,
}

/// The queue and its writer thread.
pub struct Telemetry {
    sender: Mutex<Option<SyncSender<QueryLog>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Telemetry")
            .field("counters", &self.counters())
            .finish_non_exhaustive()
    }
}

impl Telemetry {
    /// Starts the writer thread; `sink` writes one batch. With `capacity` logs queued, the
    /// next one is dropped. If the thread cannot be started, every log is dropped (counted).
    pub fn start(
        capacity: usize,
        sink: impl FnMut(&[QueryLog]) -> Result<(), HistoryError> + Send + 'static,
    ) -> Telemetry {
        let (sender, receiver) = sync_channel(capacity);
        let counters = Arc::new(Counters::default());
        let worker_counters = Arc::clone(&counters);
        let worker = std::thread::Builder::new()
            .name("history-telemetry".to_string())
            .spawn(move || write_batches(&receiver, sink, &worker_counters));
        let (sender, worker) = match worker {
            Ok(worker) => (Some(sender), Some(worker)),
            Err(error) => {
                tracing::warn!("history telemetry disabled: cannot start its thread: {error}");
                (None, None)
            }
        };
        Telemetry {
            sender: Mutex::new(sender),
            worker: Mutex::new(worker),
            counters,
        }
    }

    /// Queues `log` without waiting; drops it (counted) when the queue is full.
    pub fn record(&self, log: QueryLog) {
        let sender = self
            .sender
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(sender) = sender.as_ref() else {
            self.counters.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        };
        match sender.try_send(log) {
            Ok(()) => {
                self.counters.queued.fetch_add(1, Ordering::Relaxed);
            }
            Err(TrySendError::Full(log) | TrySendError::Disconnected(log)) => {
                self.counters.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(query_id = %log.query_id, "history query log dropped: the telemetry queue is full");
            }
        }
    }

    /// Closes the queue and waits until everything queued has been written (or has failed).
    /// Later logs are dropped.
    pub fn close(&self) {
        self.sender
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let worker = self
            .worker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(worker) = worker
            && worker.join().is_err()
        {
            tracing::warn!("history telemetry thread panicked");
        }
    }

    /// `(name, value)` of the queue's counters: logs queued, dropped (queue full), written,
    /// failed (the write failed), and write batches.
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        let counters = &self.counters;
        [
            ("telemetry queued", &counters.queued),
            ("telemetry dropped", &counters.dropped),
            ("telemetry written", &counters.written),
            ("telemetry failed", &counters.failed),
            ("telemetry batches", &counters.batches),
        ]
        .into_iter()
        .map(|(name, counter)| (name, counter.load(Ordering::Relaxed)))
        .collect()
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        self.close();
    }
}

fn write_batches(
    receiver: &Receiver<QueryLog>,
    mut sink: impl FnMut(&[QueryLog]) -> Result<(), HistoryError>,
    counters: &Counters,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    // Ends when the queue is closed and empty.
    while let Ok(first) = receiver.recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match receiver.try_recv() {
                Ok(log) => batch.push(log),
                Err(_) => break,
            }
        }
        counters.batches.fetch_add(1, Ordering::Relaxed);
        match sink(&batch) {
            Ok(()) => {
                counters
                    .written
                    .fetch_add(batch.len() as u64, Ordering::Relaxed);
            }
            Err(error) => {
                counters
                    .failed
                    .fetch_add(batch.len() as u64, Ordering::Relaxed);
                tracing::warn!(
                    logs = batch.len(),
                    "history query logs not written: {error}"
                );
            }
        }
        batch.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::channel;

    use super::*;

    fn log(index: usize) -> QueryLog {
        QueryLog {
            query_id: format!("q{index}"),
            at_ms: 0,
            query: "cargo".to_string(),
            terms: vec!["cargo".to_string()],
            elapsed_us: 1,
            hits: vec![(1, "s:1".to_string(), 1.0)],
        }
    }

    /// A full queue drops (and counts) instead of waiting; closing writes what was queued.
    #[test]
    fn a_full_queue_drops_and_close_flushes_the_rest() {
        let (entered, entered_rx) = channel::<()>();
        let (release, release_rx) = channel::<()>();
        let written = Arc::new(Mutex::new(Vec::new()));
        let sink_written = Arc::clone(&written);
        let telemetry = Telemetry::start(4, move |logs| {
            // The first batch holds the writer until the test releases it.
            let _ = entered.send(());
            let _ = release_rx.recv();
            sink_written
                .lock()
                .unwrap()
                .extend(logs.iter().map(|log| log.query_id.clone()));
            Ok(())
        });
        telemetry.record(log(0));
        entered_rx.recv().unwrap();
        // The writer is busy with q0: four fit in the queue, the rest are dropped.
        for index in 1..10 {
            telemetry.record(log(index));
        }
        let counters: std::collections::HashMap<_, _> = telemetry.counters().into_iter().collect();
        assert_eq!(counters["telemetry queued"], 5);
        assert_eq!(counters["telemetry dropped"], 5);
        // Never blocks on the sink again: every later batch is released up front.
        for _ in 0..10 {
            release.send(()).unwrap();
        }
        telemetry.close();
        assert_eq!(*written.lock().unwrap(), ["q0", "q1", "q2", "q3", "q4"]);
        let counters: std::collections::HashMap<_, _> = telemetry.counters().into_iter().collect();
        assert_eq!(counters["telemetry written"], 5);
        // After close, logs are dropped.
        telemetry.record(log(11));
        assert_eq!(
            telemetry
                .counters()
                .into_iter()
                .find(|(name, _)| *name == "telemetry dropped")
                .map(|(_, value)| value),
            Some(6)
        );
    }

    /// A failing write is counted, not retried, and never reaches the caller.
    #[test]
    fn a_failed_write_is_counted() {
        let telemetry = Telemetry::start(16, move |_logs| {
            Err(HistoryError::ClickHouse("down".to_string()))
        });
        telemetry.record(log(0));
        telemetry.close();
        let counters: std::collections::HashMap<_, _> = telemetry.counters().into_iter().collect();
        assert_eq!(counters["telemetry failed"], 1);
    }
}
