//! The model's message and reasoning items as a response streams them: started at
//! `output_item.added`, completed at `output_item.done`, recorded in the model's history and
//! the rollout (tool calls are `tools/`'s).

use std::collections::HashMap;

use app_server_protocol::item::{ThreadItem, ThreadItemDetails};

use super::turn::TurnTask;
use super::turn_parts::agent_message;
use crate::clock::unix_millis;
use crate::model::{ContentItem, ReasoningContentPart, ReasoningSummaryPart, ResponseItem};
use crate::store::RolloutRecord;
use crate::sync::lock;

/// An item being streamed.
pub(super) enum OpenItem {
    /// An agent message.
    Message {
        /// When it started.
        started_at_ms: i64,
    },
    /// Reasoning, with the parts streamed so far.
    Reasoning {
        /// When it started.
        started_at_ms: i64,
        /// Summary parts.
        summary: Vec<String>,
        /// Raw reasoning parts.
        content: Vec<String>,
    },
}

impl TurnTask {
    /// `output_item.added`: starts a message or reasoning item.
    pub(super) async fn item_added(
        &self,
        item: ResponseItem,
        open: &mut HashMap<String, OpenItem>,
    ) {
        let now = unix_millis();
        let (id, details, open_item) = match item {
            ResponseItem::Message { id: Some(id), .. } => (
                id.clone(),
                agent_message(id, String::new()),
                OpenItem::Message { started_at_ms: now },
            ),
            ResponseItem::Reasoning { id, .. } => (
                id.clone(),
                ThreadItemDetails::Reasoning {
                    id,
                    summary: Vec::new(),
                    content: Vec::new(),
                },
                OpenItem::Reasoning {
                    started_at_ms: now,
                    summary: Vec::new(),
                    content: Vec::new(),
                },
            ),
            _ => return,
        };
        open.insert(id, open_item);
        self.emit_item_started(details, now).await;
    }

    /// Completes a message or reasoning item, or queues a tool call. Returns the completed
    /// thread item, if any.
    pub(super) async fn item_done(
        &self,
        item: ResponseItem,
        open: &mut HashMap<String, OpenItem>,
    ) -> Option<ThreadItem> {
        let now = unix_millis();
        let (details, started_at_ms) = match &item {
            ResponseItem::Message { id, content, role } if role == "assistant" => {
                let id = id
                    .clone()
                    .unwrap_or_else(|| format!("msg_{}", uuid::Uuid::now_v7().simple()));
                let text: String = content
                    .iter()
                    .filter_map(|part| match part {
                        ContentItem::OutputText { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                let started = self.message_started_at(&id, open).await;
                (agent_message(id, text), started)
            }
            ResponseItem::Reasoning {
                id,
                summary,
                content,
                ..
            } => {
                let started = match open.remove(id) {
                    Some(OpenItem::Reasoning { started_at_ms, .. }) => started_at_ms,
                    _ => now,
                };
                let summary = summary
                    .iter()
                    .map(|ReasoningSummaryPart::SummaryText { text }| text.clone())
                    .collect();
                let content = content
                    .iter()
                    .flatten()
                    .map(|ReasoningContentPart::ReasoningText { text }| text.clone())
                    .collect();
                (
                    ThreadItemDetails::Reasoning {
                        id: id.clone(),
                        summary,
                        content,
                    },
                    started,
                )
            }
            _ => return None,
        };
        Some(self.finish_item(item, details, started_at_ms).await)
    }

    /// Completes an assistant message whose shown text is `details`' (in plan mode, the
    /// answer without its plan block); the history keeps `item` whole.
    pub(super) async fn complete_message(
        &self,
        item: ResponseItem,
        details: ThreadItemDetails,
        open: &mut HashMap<String, OpenItem>,
    ) -> ThreadItem {
        let started_at_ms = self.message_started_at(details.id(), open).await;
        self.finish_item(item, details, started_at_ms).await
    }

    /// When the message item `id` started; the stream may have skipped its
    /// `output_item.added`, and then the item starts now.
    async fn message_started_at(&self, id: &str, open: &mut HashMap<String, OpenItem>) -> i64 {
        if let Some(OpenItem::Message { started_at_ms }) = open.remove(id) {
            return started_at_ms;
        }
        let now = unix_millis();
        self.emit_item_started(agent_message(id.to_owned(), String::new()), now)
            .await;
        now
    }

    /// Records a completed item (the model's history, the rollout) and announces it.
    async fn finish_item(
        &self,
        item: ResponseItem,
        details: ThreadItemDetails,
        started_at_ms: i64,
    ) -> ThreadItem {
        let now = unix_millis();
        let completed = ThreadItem {
            details,
            started_at_ms: Some(started_at_ms),
            completed_at_ms: Some(now),
        };
        {
            let mut state = lock(&self.thread.state);
            state.history.push(item.clone());
            state.record(&RolloutRecord::ResponseItem {
                turn_id: self.turn_id.clone(),
                item,
            });
            state.record(&RolloutRecord::Item {
                turn_id: self.turn_id.clone(),
                item: completed.clone(),
            });
        }
        self.emit_item_completed(&completed, now).await;
        completed
    }
}
