//! The rollout appender: one thread per [`Store`](super::Store) that performs every rollout
//! write and fsync of that store.
//!
//! Rollout records are produced by turn tasks on the async workers, often while they hold a
//! thread's lock. Writing there would put file I/O on the workers (and under the lock), so a
//! record is only encoded there and queued; this thread writes the queued lines in order, one
//! `write_all` each, and answers fsync and barrier requests in the same order, so an fsync
//! covers every line queued before it.
//!
//! The appender is a handle, not a process global: the store that starts it hands clones to
//! its writers, and the thread ends once every clone is gone and the queue is drained. A server
//! opens one store and shares it with all its engines (every MCP HTTP session included), so
//! one thread orders every rollout line of the server; two stores in one process order their
//! own lines only, as two processes sharing a home do.
//!
//! The queue is unbounded on purpose: the producers are the engine's own turn tasks, which
//! cannot wait (they hold a std mutex), and every queued line is one the server has already
//! decided to keep. A request that reads rollout files first waits for a
//! [`barrier`](Appender::barrier).

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

/// One unit of work for the appender.
enum Job {
    Append {
        file: Arc<File>,
        path: Arc<Path>,
        line: Vec<u8>,
    },
    Sync {
        file: Arc<File>,
        done: SyncSender<io::Result<()>>,
    },
    Barrier {
        done: SyncSender<()>,
    },
}

/// The queue into one appender thread. Clones share the thread.
#[derive(Clone, Debug)]
pub(super) struct Appender {
    /// `None` when the thread could not be started: the jobs then run on the caller's thread.
    queue: Option<Sender<Job>>,
}

impl Appender {
    /// Starts an appender thread.
    pub(super) fn start() -> Appender {
        let (sender, jobs) = channel();
        let started = std::thread::Builder::new()
            .name("tandem-rollout".into())
            .spawn(move || run(jobs));
        match started {
            Ok(_) => Appender {
                queue: Some(sender),
            },
            Err(error) => {
                tracing::error!(%error, "cannot start the rollout appender; writing inline");
                Appender { queue: None }
            }
        }
    }

    /// Queues `line` for appending to `file`. A failed write is logged with `path`: the record
    /// is lost, as it would be if the disk were full when written directly.
    pub(super) fn append(&self, file: &Arc<File>, path: &Arc<Path>, line: Vec<u8>) {
        self.submit(Job::Append {
            file: Arc::clone(file),
            path: Arc::clone(path),
            line,
        });
    }

    /// Waits until every line queued before it is written, then fsyncs `file`. Blocking: call
    /// it from a blocking thread.
    pub(super) fn sync(&self, file: &Arc<File>) -> io::Result<()> {
        let (done, result) = sync_channel(1);
        self.submit(Job::Sync {
            file: Arc::clone(file),
            done,
        });
        result
            .recv()
            .unwrap_or_else(|_| Err(io::Error::other("the rollout appender stopped")))
    }

    /// Waits until every line queued so far is written. Blocking.
    pub(super) fn barrier(&self) {
        let (done, finished) = sync_channel(1);
        self.submit(Job::Barrier { done });
        let _ = finished.recv();
    }

    fn submit(&self, job: Job) {
        match &self.queue {
            Some(sender) => {
                if let Err(returned) = sender.send(job) {
                    perform(returned.0);
                }
            }
            None => perform(job),
        }
    }
}

fn run(jobs: Receiver<Job>) {
    while let Ok(job) = jobs.recv() {
        perform(job);
    }
}

fn perform(job: Job) {
    match job {
        Job::Append { file, path, line } => {
            if let Err(error) = (&*file).write_all(&line) {
                tracing::error!(path = %path.display(), %error, "cannot append to rollout");
            }
        }
        Job::Sync { file, done } => {
            let _ = done.send(file.sync_data());
        }
        Job::Barrier { done } => {
            let _ = done.send(());
        }
    }
}
