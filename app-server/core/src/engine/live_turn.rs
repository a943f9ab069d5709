//! The running turn as a client that resumes the thread mid-turn sees it: the items started
//! so far, with the text and output streamed into them up to that moment.
//!
//! The turn task applies each of its item notifications here, under the thread's lock, just
//! before it emits it, and it emits while holding the thread's emit order
//! (`LoadedThread::emit_order`); `thread/resume` takes the same order while it reads this view
//! and subscribes the resuming connection. So every delta is either in the resume response or
//! delivered after it, never both and never neither: the resume response's text plus the
//! deltas that follow it is the final text.

use app_server_protocol::item::{ThreadItem, ThreadItemDetails};
use app_server_protocol::tables::ServerNotification;

/// The items of the running turn so far.
#[derive(Debug, Default)]
pub struct LiveTurn {
    items: Vec<ThreadItem>,
}

impl LiveTurn {
    /// Whether `notification` changes the view (the turn task skips the lock otherwise).
    pub fn changed_by(notification: &ServerNotification) -> bool {
        matches!(
            notification,
            ServerNotification::ItemStarted(_)
                | ServerNotification::ItemCompleted(_)
                | ServerNotification::AgentMessageDelta(_)
                | ServerNotification::CommandExecutionOutputDelta(_)
                | ServerNotification::PlanDelta(_)
        )
    }

    /// Applies one of the turn's notifications.
    pub fn apply(&mut self, notification: &ServerNotification) {
        match notification {
            ServerNotification::ItemStarted(started) => self.put(started.item.clone()),
            ServerNotification::ItemCompleted(completed) => self.put(completed.item.clone()),
            ServerNotification::AgentMessageDelta(delta) => {
                if let Some(ThreadItemDetails::AgentMessage { text, .. }) =
                    self.details_mut(&delta.item_id)
                {
                    text.push_str(&delta.delta);
                }
            }
            ServerNotification::CommandExecutionOutputDelta(delta) => {
                if let Some(ThreadItemDetails::CommandExecution {
                    aggregated_output, ..
                }) = self.details_mut(&delta.item_id)
                {
                    aggregated_output
                        .get_or_insert_with(String::new)
                        .push_str(&delta.delta);
                }
            }
            ServerNotification::PlanDelta(delta) => {
                if let Some(ThreadItemDetails::Plan { text, .. }) = self.details_mut(&delta.item_id)
                {
                    text.push_str(&delta.delta);
                }
            }
            _ => {}
        }
    }

    /// The items so far, in the order they started.
    pub fn items(&self) -> Vec<ThreadItem> {
        self.items.clone()
    }

    fn put(&mut self, item: ThreadItem) {
        match self
            .items
            .iter_mut()
            .find(|known| known.details.id() == item.details.id())
        {
            Some(known) => *known = item,
            None => self.items.push(item),
        }
    }

    fn details_mut(&mut self, item_id: &str) -> Option<&mut ThreadItemDetails> {
        self.items
            .iter_mut()
            .rev()
            .find(|item| item.details.id() == item_id)
            .map(|item| &mut item.details)
    }
}
