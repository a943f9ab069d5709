//! Blocking work that stops when nobody waits for it any more.
//!
//! A refresh of a large tree or a ranking runs for seconds on the blocking pool, where a
//! dropped future cannot reach it: a cancelled call, an interrupted turn or a server shutting
//! down would otherwise leave it running to the end, and a runtime waits for its blocking
//! threads before the process can exit. [`blocking`] hands the job a [`StopFlag`] that is
//! raised when the future awaiting the job is dropped; the job checks it between files, rows
//! and batches and returns [`IndexError::Stopped`], so that its transaction rolls back and its
//! thread is free again within moments.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::IndexError;

/// Raised when the caller of a blocking job stopped waiting for it.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// A flag nobody raises (work that always runs to the end, such as a benchmark's).
    pub fn never() -> Self {
        Self::default()
    }

    /// `Err(IndexError::Stopped)` once the flag is raised.
    pub fn check(&self) -> Result<(), IndexError> {
        if self.0.load(Ordering::Relaxed) {
            return Err(IndexError::Stopped);
        }
        Ok(())
    }

    pub(crate) fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Raises its flag when dropped: when the future that owns it completes or is dropped.
struct RaiseOnDrop(StopFlag);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.raise();
    }
}

/// Runs `job` on the blocking pool; dropping the returned future raises the job's
/// [`StopFlag`].
pub(crate) async fn blocking<T, F>(job: F) -> Result<T, IndexError>
where
    T: Send + 'static,
    F: FnOnce(&StopFlag) -> Result<T, IndexError> + Send + 'static,
{
    let stop = StopFlag::default();
    let _raise_on_drop = RaiseOnDrop(stop.clone());
    match tokio::task::spawn_blocking(move || job(&stop)).await {
        Ok(outcome) => outcome,
        Err(error) => Err(IndexError::Io(format!("the index task failed: {error}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn dropping_the_caller_stops_the_job() {
        let (started, started_rx) = std::sync::mpsc::channel();
        let (ended, ended_rx) = std::sync::mpsc::channel();
        let job = blocking(move |stop| {
            let _ = started.send(());
            let outcome = loop {
                if let Err(error) = stop.check() {
                    break error;
                }
                std::thread::yield_now();
            };
            let _ = ended.send(outcome.to_string());
            Ok(())
        });
        let waiting = tokio::spawn(job);
        tokio::task::spawn_blocking(move || started_rx.recv())
            .await
            .unwrap()
            .unwrap();
        waiting.abort();
        let message = tokio::task::spawn_blocking(move || ended_rx.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(message, IndexError::Stopped.to_string());
    }
}
