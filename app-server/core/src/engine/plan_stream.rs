//! A plan-mode turn's answer, split as it streams into the agent message and the proposed
//! plan (`proposed_plan.rs`): the text outside the `<proposed_plan>` block streams as the
//! message's `item/agentMessage/delta`, the text inside as `item/plan/delta` of a `plan`
//! item (`<turn id>-plan`), which completes with the plan's text before the message does.
//!
//! A message item starts only when text of its own arrives (leading whitespace waits for
//! it), so an answer that is all plan shows no empty message. The model's history keeps the
//! whole answer, tags included.

use std::collections::{HashMap, HashSet};

use app_server_protocol::item::{ThreadItem, ThreadItemDetails};
use app_server_protocol::item_progress::PlanDeltaNotification;
use app_server_protocol::notifications::ItemDeltaNotification;
use app_server_protocol::policy::ModeKind;
use app_server_protocol::tables::ServerNotification;

use super::proposed_plan::{PlanSegment, ProposedPlanParser, plan_text, without_plan};
use super::turn::TurnTask;
use super::turn_items::OpenItem;
use super::turn_parts::agent_message;
use crate::clock::unix_millis;
use crate::model::{ContentItem, ResponseItem};
use crate::store::RolloutRecord;
use crate::sync::lock;

/// The plan-mode state of one model response.
#[derive(Debug, Default)]
pub(super) struct PlanStream {
    /// One reader per message item.
    parsers: HashMap<String, ProposedPlanParser>,
    /// Message items announced by the model whose `item/started` waits for their own text.
    pending: HashSet<String>,
    /// Whitespace that came before a pending message's first text.
    leading_whitespace: HashMap<String, String>,
    /// When the plan item started, once it has.
    plan_started_at_ms: Option<i64>,
    /// The plan item completed; later plan text is ignored.
    plan_completed: bool,
}

impl TurnTask {
    /// The plan-mode state for a response of this turn, when the thread is in plan mode.
    pub(super) fn plan_stream(&self) -> Option<PlanStream> {
        let plan_mode = lock(&self.thread.state)
            .meta
            .collaboration_mode
            .as_ref()
            .is_some_and(|mode| mode.mode == ModeKind::Plan);
        plan_mode.then(PlanStream::default)
    }

    /// `output_item.added`: in plan mode a message waits for its own text to start.
    pub(super) async fn item_added_in_mode(
        &self,
        item: ResponseItem,
        open: &mut HashMap<String, OpenItem>,
        plan: Option<&mut PlanStream>,
    ) {
        match (plan, &item) {
            (Some(plan), ResponseItem::Message { id: Some(id), .. }) => {
                plan.pending.insert(id.clone());
            }
            _ => self.item_added(item, open).await,
        }
    }

    /// Text of an agent message: a delta of the message, or, in plan mode, split between the
    /// message and the plan.
    pub(super) async fn text_delta(
        &self,
        item_id: String,
        delta: String,
        open: &mut HashMap<String, OpenItem>,
        plan: Option<&mut PlanStream>,
    ) {
        let Some(plan) = plan else {
            self.message_delta(item_id, delta).await;
            return;
        };
        let segments = plan
            .parsers
            .entry(item_id.clone())
            .or_default()
            .push(&delta);
        self.plan_segments(&item_id, segments, open, plan).await;
    }

    /// `output_item.done` of an assistant message in plan mode: the rest of its text, then the
    /// plan item's completion, then the message's, without the plan block (none when nothing
    /// else is left). `None` when not in plan mode or not an assistant message.
    pub(super) async fn message_done_in_plan_mode(
        &self,
        item: &ResponseItem,
        open: &mut HashMap<String, OpenItem>,
        plan: Option<&mut PlanStream>,
    ) -> Option<Vec<ThreadItem>> {
        let plan = plan?;
        let ResponseItem::Message { id, content, role } = item else {
            return None;
        };
        if role != "assistant" {
            return None;
        }
        let id = id
            .clone()
            .unwrap_or_else(|| format!("msg_{}", uuid::Uuid::now_v7().simple()));
        if let Some(mut parser) = plan.parsers.remove(&id) {
            let segments = parser.finish();
            self.plan_segments(&id, segments, open, plan).await;
        }
        let answer: String = content
            .iter()
            .filter_map(|part| match part {
                ContentItem::OutputText { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let mut completed = Vec::new();
        if let Some(text) = plan_text(&answer) {
            completed.extend(self.complete_plan(text, plan).await);
        }
        let message = without_plan(&answer);
        plan.pending.remove(&id);
        plan.leading_whitespace.remove(&id);
        if message.trim().is_empty() {
            open.remove(&id);
            let mut state = lock(&self.thread.state);
            state.history.push(item.clone());
            state.record(&RolloutRecord::ResponseItem {
                turn_id: self.turn_id.clone(),
                item: item.clone(),
            });
            return Some(completed);
        }
        completed.push(
            self.complete_message(item.clone(), agent_message(id, message), open)
                .await,
        );
        Some(completed)
    }

    /// The end of the response: the held text of every message still open.
    pub(super) async fn plan_response_end(
        &self,
        open: &mut HashMap<String, OpenItem>,
        plan: Option<&mut PlanStream>,
    ) {
        let Some(plan) = plan else { return };
        for (item_id, mut parser) in std::mem::take(&mut plan.parsers) {
            let segments = parser.finish();
            self.plan_segments(&item_id, segments, open, plan).await;
        }
    }

    async fn plan_segments(
        &self,
        item_id: &str,
        segments: Vec<PlanSegment>,
        open: &mut HashMap<String, OpenItem>,
        plan: &mut PlanStream,
    ) {
        for segment in segments {
            match segment {
                PlanSegment::Text(text) => {
                    if plan.pending.contains(item_id) {
                        if text.trim().is_empty() {
                            plan.leading_whitespace
                                .entry(item_id.to_owned())
                                .or_default()
                                .push_str(&text);
                            continue;
                        }
                        plan.pending.remove(item_id);
                        let item = ResponseItem::Message {
                            id: Some(item_id.to_owned()),
                            content: Vec::new(),
                            role: "assistant".into(),
                        };
                        self.item_added(item, open).await;
                        let prefix = plan.leading_whitespace.remove(item_id).unwrap_or_default();
                        self.message_delta(item_id.to_owned(), prefix + &text).await;
                    } else {
                        self.message_delta(item_id.to_owned(), text).await;
                    }
                }
                PlanSegment::PlanStart => self.start_plan(plan).await,
                PlanSegment::PlanDelta(delta) => {
                    if plan.plan_completed || delta.is_empty() {
                        continue;
                    }
                    self.start_plan(plan).await;
                    self.emit(ServerNotification::PlanDelta(PlanDeltaNotification {
                        thread_id: self.thread.id.clone(),
                        turn_id: self.turn_id.clone(),
                        item_id: self.plan_item_id(),
                        delta,
                    }))
                    .await;
                }
                PlanSegment::PlanEnd => {}
            }
        }
    }

    fn plan_item_id(&self) -> String {
        format!("{}-plan", self.turn_id)
    }

    async fn start_plan(&self, plan: &mut PlanStream) {
        if plan.plan_started_at_ms.is_some() || plan.plan_completed {
            return;
        }
        let now = unix_millis();
        plan.plan_started_at_ms = Some(now);
        self.emit_item_started(
            ThreadItemDetails::Plan {
                id: self.plan_item_id(),
                text: String::new(),
            },
            now,
        )
        .await;
    }

    /// Completes the plan item with the plan's text as parsed from the whole answer.
    async fn complete_plan(&self, text: String, plan: &mut PlanStream) -> Option<ThreadItem> {
        if plan.plan_completed {
            return None;
        }
        self.start_plan(plan).await;
        plan.plan_completed = true;
        let now = unix_millis();
        let completed = ThreadItem {
            details: ThreadItemDetails::Plan {
                id: self.plan_item_id(),
                text,
            },
            started_at_ms: plan.plan_started_at_ms,
            completed_at_ms: Some(now),
        };
        lock(&self.thread.state).record(&RolloutRecord::Item {
            turn_id: self.turn_id.clone(),
            item: completed.clone(),
        });
        self.emit_item_completed(&completed, now).await;
        Some(completed)
    }

    async fn message_delta(&self, item_id: String, delta: String) {
        self.emit(ServerNotification::AgentMessageDelta(
            ItemDeltaNotification {
                thread_id: self.thread.id.clone(),
                turn_id: self.turn_id.clone(),
                item_id,
                delta,
            },
        ))
        .await;
    }
}
