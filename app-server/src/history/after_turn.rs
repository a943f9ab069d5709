//! Read-your-writes for conversation history: the after-turn ingests this server has queued,
//! and the wait a search does for them.
//!
//! Every `turn/completed` queues an ingest of the thread's rollout (see
//! [`super::ingesting_sink`]) before the notification reaches the client. A search first waits,
//! bounded by [`SEARCH_WAIT`], until every ingest queued before it has finished, so that a
//! client that searches after `turn/completed` finds that turn. The wait blocks, so it runs on
//! the blocking thread that then runs the search, never on an async worker.

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The longest a search waits for the ingests queued before it.
pub const SEARCH_WAIT: Duration = Duration::from_secs(2);

/// The after-turn ingests of this process: queued or running, by ticket.
static INGESTS: AfterTurnIngests = AfterTurnIngests::new();

/// Queued and running ingests, by increasing ticket.
struct AfterTurnIngests {
    state: Mutex<Tickets>,
    finished: Condvar,
}

struct Tickets {
    /// The ticket of the next queued ingest.
    next: u64,
    /// Tickets of the ingests that have not finished.
    pending: BTreeSet<u64>,
}

/// One queued ingest; dropping it (when the ingest has finished, failed or panicked) marks it
/// finished.
pub struct IngestTicket(u64);

impl AfterTurnIngests {
    const fn new() -> Self {
        Self {
            state: Mutex::new(Tickets {
                next: 0,
                pending: BTreeSet::new(),
            }),
            finished: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Tickets> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Registers an ingest about to be queued; keep the ticket until it has run.
pub fn queue() -> IngestTicket {
    let mut tickets = INGESTS.lock();
    let ticket = tickets.next;
    tickets.next += 1;
    tickets.pending.insert(ticket);
    IngestTicket(ticket)
}

impl Drop for IngestTicket {
    fn drop(&mut self) {
        INGESTS.lock().pending.remove(&self.0);
        INGESTS.finished.notify_all();
    }
}

/// Blocks until every ingest queued before the call has finished, or `limit` has passed;
/// `false` when it gave up. Call it on a blocking thread.
pub fn wait_for_queued(limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut tickets = INGESTS.lock();
    let horizon = tickets.next;
    loop {
        let done = tickets
            .pending
            .first()
            .is_none_or(|oldest| *oldest >= horizon);
        if done {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        tickets = match INGESTS.finished.wait_timeout(tickets, deadline - now) {
            Ok((tickets, _)) => tickets,
            Err(poisoned) => poisoned.into_inner().0,
        };
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{queue, wait_for_queued};

    #[test]
    fn a_search_waits_for_the_ingests_queued_before_it() {
        let pending = queue();
        assert!(!wait_for_queued(Duration::from_millis(10)), "gave up");
        drop(pending);
        assert!(wait_for_queued(Duration::ZERO));

        // The end of the ingest wakes a waiting search (which would otherwise give up only
        // after a minute and fail the assertion).
        let pending = queue();
        let waiter = std::thread::spawn(|| wait_for_queued(Duration::from_secs(60)));
        drop(pending);
        assert!(waiter.join().unwrap());
    }
}
