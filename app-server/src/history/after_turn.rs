//! Read-your-writes for conversation history: the after-turn ingests queued on one history
//! service, and the wait a search of that service does for them.
//!
//! Every `turn/completed` queues an ingest of the thread's rollout (see
//! [`super::ingesting_sink`]) before the notification reaches the client. A search first waits,
//! bounded by [`SEARCH_WAIT`], until every ingest queued before it has finished, so that a
//! client that searches after `turn/completed` finds that turn. The wait blocks, so it runs on
//! the blocking thread that then runs the search, never on an async worker.

use std::collections::BTreeSet;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The longest a search waits for the ingests queued before it.
pub const SEARCH_WAIT: Duration = Duration::from_secs(2);

/// The after-turn ingests queued on one history service, by ticket. A server holds one per
/// [`History`](super::History), so a search waits only for the ingests into the index it
/// reads, never for another server's or another service's.
#[derive(Default)]
pub struct AfterTurnIngests {
    state: Mutex<Tickets>,
    finished: Condvar,
}

#[derive(Default)]
struct Tickets {
    /// The ticket of the next queued ingest.
    next: u64,
    /// Tickets of the ingests that have not finished.
    pending: BTreeSet<u64>,
}

/// One queued ingest; dropping it (when the ingest has finished, failed or panicked) marks it
/// finished.
pub struct IngestTicket {
    ingests: Arc<AfterTurnIngests>,
    ticket: u64,
}

impl AfterTurnIngests {
    fn lock(&self) -> MutexGuard<'_, Tickets> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers an ingest about to be queued; keep the ticket until it has run.
    pub fn queue(self: &Arc<Self>) -> IngestTicket {
        let mut tickets = self.lock();
        let ticket = tickets.next;
        tickets.next += 1;
        tickets.pending.insert(ticket);
        IngestTicket {
            ingests: Arc::clone(self),
            ticket,
        }
    }

    /// Blocks until every ingest queued before the call has finished, or `limit` has passed;
    /// `false` when it gave up. Call it on a blocking thread.
    pub fn wait_for_queued(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut tickets = self.lock();
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
            tickets = match self.finished.wait_timeout(tickets, deadline - now) {
                Ok((tickets, _)) => tickets,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl Drop for IngestTicket {
    fn drop(&mut self) {
        self.ingests.lock().pending.remove(&self.ticket);
        self.ingests.finished.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::AfterTurnIngests;

    #[test]
    fn a_search_waits_for_the_ingests_queued_before_it() {
        let ingests = Arc::new(AfterTurnIngests::default());
        let pending = ingests.queue();
        assert!(
            !ingests.wait_for_queued(Duration::from_millis(10)),
            "gave up"
        );
        drop(pending);
        assert!(ingests.wait_for_queued(Duration::ZERO));

        // The end of the ingest wakes a waiting search (which would otherwise give up only
        // after a minute and fail the assertion).
        let pending = ingests.queue();
        let waiter = {
            let ingests = Arc::clone(&ingests);
            std::thread::spawn(move || ingests.wait_for_queued(Duration::from_secs(60)))
        };
        drop(pending);
        assert!(waiter.join().unwrap());
    }

    #[test]
    fn a_search_does_not_wait_for_the_ingests_of_another_history() {
        let busy = Arc::new(AfterTurnIngests::default());
        let idle = Arc::new(AfterTurnIngests::default());
        let _pending = busy.queue();
        // `Duration::ZERO`: an answer that depended on the other history's ingest would be
        // `false` here, as it is for the busy one.
        assert!(idle.wait_for_queued(Duration::ZERO));
        assert!(!busy.wait_for_queued(Duration::ZERO));
    }
}
