//! The agent loop of one turn: prompt → model stream → items → tools → prompt … until the
//! model answers without tool calls, the turn is interrupted, or it fails.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use app_server_protocol::item::{ThreadItem, ThreadItemDetails, UserInput};
use app_server_protocol::notifications::{
    ErrorNotification, ItemCompletedNotification, ItemStartedNotification,
    ReasoningSummaryPartAddedNotification, ReasoningSummaryTextDeltaNotification,
    ReasoningTextDeltaNotification, ThreadStatusChangedNotification,
    ThreadTokenUsageUpdatedNotification, TurnNotification,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{
    ThreadStatus, TokenUsageBreakdown, Turn, TurnError, TurnItemsView, TurnStatus,
};
use futures::{FutureExt, Stream, StreamExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::turn_parts::{add_usage, append_part, input_rejection};
use crate::clock::{unix_millis, unix_seconds};
use crate::engine::EngineInner;
use crate::engine::hooks::PromptVerdict;
use crate::engine::image_file::LocalImages;
use crate::engine::prompt;
use crate::engine::thread::{LoadedThread, SteerInput};
use crate::engine::tools::ToolCall;
use crate::engine::turn_end::TurnEnd;
use crate::engine::turn_items::OpenItem;
use crate::model::retry::{RetryEvent, RetryPolicy, stream_with_retries};
use crate::model::{ModelError, ModelEvent, ModelRequest};
use crate::store::RolloutRecord;
use crate::sync::lock;
use crate::tools::apply_patch::diff::TurnDiffTracker;

/// Everything a turn task needs.
pub struct TurnTask {
    pub engine: Arc<EngineInner>,
    pub thread: Arc<LoadedThread>,
    pub turn_id: String,
    pub started_at: i64,
    pub started_at_ms: i64,
    pub input: SteerInput,
    pub output_schema: Option<serde_json::Value>,
    pub cancel: CancellationToken,
    pub steer: mpsc::Receiver<SteerInput>,
    /// The turn's file changes, for `turn/diff/updated`.
    pub diff: TurnDiffTracker,
    /// `thread/compact/start`: the turn compacts the history and ends.
    pub compact_only: bool,
    /// `thread/shellCommand`: the turn runs the user's command and ends.
    pub shell_command: Option<crate::engine::shell_command::UserShellCommand>,
    /// `review/start`: the turn reviews the changes and ends.
    pub review: Option<crate::engine::review::PreparedReview>,
}

/// How long an interrupt that a tool asked for (an approval answered `cancel`) waits for the
/// end of the model's response, whose usage it reports: the tool call was its last item, so
/// the end is normally already on its way.
const RESPONSE_END_WAIT: Duration = Duration::from_secs(1);

/// How a sampling round ended.
enum RoundEnd {
    /// The response completed; `true` when it asked for tools (another round follows).
    Completed { needs_follow_up: bool },
    /// New input arrived; the stream was abandoned and the input recorded.
    Steered,
    /// The turn was interrupted.
    Interrupted,
    /// The model failed.
    Failed(TurnError),
}

impl TurnTask {
    /// Runs the turn to its end and emits `turn/completed`.
    pub async fn run(mut self) {
        let thread_id = self.thread.id.clone();
        let entered_review = self.announce_review().await;
        self.emit(ServerNotification::ThreadStatusChanged(
            ThreadStatusChangedNotification {
                thread_id: thread_id.clone(),
                status: ThreadStatus::Active {
                    active_flags: Vec::new(),
                },
            },
        ))
        .await;
        self.emit(ServerNotification::TurnStarted(TurnNotification {
            thread_id: thread_id.clone(),
            turn: self.turn_snapshot(
                TurnStatus::InProgress,
                Vec::new(),
                TurnItemsView::NotLoaded,
                None,
                None,
            ),
        }))
        .await;
        self.announced();

        self.begin_persisted_turn().await;
        if let Some(shell) = self.shell_command.take() {
            let (item, interrupted) = self.run_user_shell(shell).await;
            let status = if interrupted {
                TurnStatus::Interrupted
            } else {
                TurnStatus::Completed
            };
            self.finish(status, vec![item]).await;
            return;
        }
        if let (Some(review), Some(entered)) = (self.review.take(), entered_review) {
            match self.run_review(review, entered).await {
                Ok((status, items)) => self.finish(status, items).await,
                Err(error) => self.finish_failed(error).await,
            }
            return;
        }
        let mut items: Vec<ThreadItem> = Vec::new();
        let first_input = self.input.clone();
        let images = LocalImages::read(&first_input.input).await;
        if !first_input.input.is_empty() {
            let PromptVerdict::Proceed(context) = self.user_prompt_hooks(&first_input).await else {
                self.finish(TurnStatus::Completed, items).await;
                return;
            };
            let item = self.record_user_message(&first_input, &images).await;
            items.push(item);
            self.add_prompt_context(&context);
        }
        if let Some(error) = input_rejection(&first_input.input, &images) {
            self.finish_failed(error).await;
            return;
        }

        // A provider's "context window exceeded" is answered by one compaction and a retry.
        let mut compacted_after_error = false;
        let mut stop_continuations = 0;
        let outcome = loop {
            let round = match self.compact_when_needed(&mut items, false).await {
                Some(end) => end,
                None => self.sample(&mut items).await,
            };
            match round {
                RoundEnd::Completed {
                    needs_follow_up: true,
                }
                | RoundEnd::Steered => continue,
                RoundEnd::Completed {
                    needs_follow_up: false,
                } if self
                    .stop_hooks_continue(&mut items, &mut stop_continuations)
                    .await =>
                {
                    continue;
                }
                RoundEnd::Completed {
                    needs_follow_up: false,
                } => break TurnStatus::Completed,
                RoundEnd::Interrupted => break TurnStatus::Interrupted,
                RoundEnd::Failed(error)
                    if !compacted_after_error
                        && crate::engine::compaction::is_context_window_error(&error) =>
                {
                    compacted_after_error = true;
                    if let Some(RoundEnd::Failed(error)) =
                        self.compact_when_needed(&mut items, true).await
                    {
                        self.finish_failed(error).await;
                        return;
                    }
                }
                RoundEnd::Failed(error) => {
                    self.finish_failed(error).await;
                    return;
                }
            }
        };
        self.finish(outcome, items).await;
    }

    /// Compacts when this is a compaction turn, when `forced`, or when the next request
    /// would exceed the automatic limit. `Some` ends the round: a compaction turn is done, or
    /// the compaction failed.
    async fn compact_when_needed(
        &mut self,
        items: &mut Vec<ThreadItem>,
        forced: bool,
    ) -> Option<RoundEnd> {
        if !(self.compact_only || forced || self.should_compact().await) {
            return None;
        }
        match self.compact().await {
            Ok(item) => items.push(item),
            Err(_) if self.cancel.is_cancelled() => return Some(RoundEnd::Interrupted),
            Err(error) => return Some(RoundEnd::Failed(error)),
        }
        self.compact_only.then_some(RoundEnd::Completed {
            needs_follow_up: false,
        })
    }

    /// Emits `item/started` for an item of `details` started at `now` (milliseconds since the
    /// epoch).
    pub(super) async fn emit_item_started(&self, details: ThreadItemDetails, now: i64) {
        self.emit(ServerNotification::ItemStarted(ItemStartedNotification {
            item: ThreadItem {
                details,
                started_at_ms: Some(now),
                completed_at_ms: None,
            },
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            started_at_ms: now,
        }))
        .await;
    }

    /// Emits `item/completed` for `item`, completed at `now` (milliseconds since the epoch).
    pub(super) async fn emit_item_completed(&self, item: &ThreadItem, now: i64) {
        self.emit(ServerNotification::ItemCompleted(
            ItemCompletedNotification {
                item: item.clone(),
                thread_id: self.thread.id.clone(),
                turn_id: self.turn_id.clone(),
                content_token_count: None,
                completed_at_ms: now,
            },
        ))
        .await;
    }

    /// Emits one of the turn's notifications, applying it first to the live turn that a
    /// resuming client is shown, in the thread's emit order.
    pub(super) async fn emit(&self, notification: ServerNotification) {
        let _order = self.thread.emit_order.lock().await;
        if crate::engine::live_turn::LiveTurn::changed_by(&notification) {
            let mut state = lock(&self.thread.state);
            if let Some(active) = state
                .active
                .as_mut()
                .filter(|active| active.id == self.turn_id)
            {
                active.live.apply(&notification);
            }
        }
        self.engine.sink.emit(notification).await;
    }

    fn turn_snapshot(
        &self,
        status: TurnStatus,
        items: Vec<ThreadItem>,
        items_view: TurnItemsView,
        error: Option<TurnError>,
        completed_at: Option<i64>,
    ) -> Turn {
        self.end()
            .snapshot(status, items, items_view, error, completed_at)
    }

    /// The turn's identity, kept by [`run_guarded`](crate::engine::turn_end::run_guarded)
    /// to end the turn if this task panics.
    pub(super) fn end(&self) -> TurnEnd {
        TurnEnd {
            engine: self.engine.clone(),
            thread: self.thread.clone(),
            turn_id: self.turn_id.clone(),
            started_at: self.started_at,
            started_at_ms: self.started_at_ms,
        }
    }

    /// Emits and records the userMessage item for `input` and adds it to the history, with
    /// its local images as read into `images` (files are never read under the thread's lock).
    async fn record_user_message(&self, input: &SteerInput, images: &LocalImages) -> ThreadItem {
        let now = unix_millis();
        let content: Vec<UserInput> = input
            .input
            .iter()
            .cloned()
            .map(|input| match input {
                UserInput::Text {
                    text,
                    text_elements,
                } => UserInput::Text {
                    text,
                    text_elements: Some(text_elements.unwrap_or_default()),
                },
                other => other,
            })
            .collect();
        let details = ThreadItemDetails::UserMessage {
            id: uuid::Uuid::now_v7().to_string(),
            client_id: input.client_id.clone(),
            content: content.clone(),
        };
        let started = ThreadItem {
            details: details.clone(),
            started_at_ms: Some(now),
            completed_at_ms: None,
        };
        let completed = ThreadItem {
            details,
            started_at_ms: Some(now),
            completed_at_ms: Some(now),
        };
        self.emit(ServerNotification::ItemStarted(ItemStartedNotification {
            item: started,
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            started_at_ms: now,
        }))
        .await;
        {
            let mut state = lock(&self.thread.state);
            let message = prompt::user_message(&content, images);
            state.history.push(message.clone());
            if state.meta.preview.is_empty()
                && let Some(preview) = prompt::preview_text(&content)
            {
                state.meta.preview = preview;
            }
            state.record(&RolloutRecord::ResponseItem {
                turn_id: self.turn_id.clone(),
                item: message,
            });
            state.record(&RolloutRecord::Item {
                turn_id: self.turn_id.clone(),
                item: completed.clone(),
            });
        }
        self.emit_item_completed(&completed, now).await;
        completed
    }

    pub(super) fn build_request(
        &self,
    ) -> (
        ModelRequest,
        RetryPolicy,
        Arc<dyn crate::model::ModelClient>,
    ) {
        let state = lock(&self.thread.state);
        let questions = self.engine.questions_enabled();
        let mut tools = crate::engine::tools::specs(questions);
        let plan_mode = state
            .meta
            .collaboration_mode
            .as_ref()
            .is_some_and(|mode| mode.mode == app_server_protocol::policy::ModeKind::Plan);
        tools.extend(
            crate::engine::tools::DialogTools::offered(
                questions && self.engine.dialogs_enabled(),
                plan_mode,
                self.engine.config().ask_user,
            )
            .specs(),
        );
        tools.extend(crate::engine::tools::permissions::offered(
            &self.engine.config(),
        ));
        let request = ModelRequest {
            model: state.meta.model.clone(),
            instructions: prompt::instructions(&state.meta),
            input: state.history.clone(),
            tools: {
                tools.extend(crate::engine::tools::dynamic::tool_specs(
                    &state.meta.dynamic_tools,
                ));
                tools.extend(crate::engine::mcp::tool_specs(&self.thread.mcp));
                tools
            },
            effort: state.meta.reasoning_effort,
            summary: state.meta.reasoning_summary,
            output_schema: self.output_schema.clone(),
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
        };
        let policy = self
            .engine
            .config()
            .model_providers
            .get(&state.meta.model_provider)
            .map(RetryPolicy::from_provider)
            .unwrap_or_default();
        (request, policy, state.client.clone())
    }

    /// One model request and its stream.
    async fn sample(&mut self, items: &mut Vec<ThreadItem>) -> RoundEnd {
        // MCP servers still starting get their startup timeout to offer their tools.
        self.thread.mcp.wait_started(&self.cancel).await;
        let (mut request, policy, client) = self.build_request();
        self.offer_query_project(&mut request).await;
        let mut stream = Box::pin(stream_with_retries(client, request, policy));
        let mut open: HashMap<String, OpenItem> = HashMap::new();
        let mut plan = self.plan_stream();
        let mut called_tools = false;
        loop {
            let event = tokio::select! {
                biased;
                () = self.cancel.cancelled() => {
                    return self.interrupted(&mut stream, Duration::ZERO).await;
                }
                steer = self.steer.recv() => {
                    let Some(input) = steer else { continue };
                    let images = LocalImages::read(&input.input).await;
                    let item = self.record_user_message(&input, &images).await;
                    items.push(item);
                    if let Some(error) = input_rejection(&input.input, &images) {
                        return RoundEnd::Failed(error);
                    }
                    return RoundEnd::Steered;
                }
                event = stream.next() => event,
            };
            let event = match event {
                None => {
                    return RoundEnd::Failed(TurnError {
                        message: "stream disconnected before completion: stream ended without a completed response".into(),
                        codex_error_info: Some(app_server_protocol::thread::CodexErrorInfo::ResponseStreamDisconnected { http_status_code: None }),
                        additional_details: None,
                        misalignment: None,
                    });
                }
                Some(Err(error)) => return RoundEnd::Failed(error.to_turn_error()),
                Some(Ok(RetryEvent::Retrying { error, .. })) => {
                    self.emit(ServerNotification::Error(ErrorNotification {
                        error: error.to_turn_error(),
                        will_retry: true,
                        thread_id: self.thread.id.clone(),
                        turn_id: self.turn_id.clone(),
                    }))
                    .await;
                    continue;
                }
                Some(Ok(RetryEvent::Event(event))) => event,
            };
            match event {
                ModelEvent::OutputItemAdded(item) => {
                    self.item_added_in_mode(item, &mut open, plan.as_mut())
                        .await;
                }
                ModelEvent::OutputTextDelta { item_id, delta } => {
                    self.text_delta(item_id, delta, &mut open, plan.as_mut())
                        .await;
                }
                ModelEvent::ReasoningSummaryPartAdded {
                    item_id,
                    summary_index,
                } => {
                    self.emit(ServerNotification::ReasoningSummaryPartAdded(
                        ReasoningSummaryPartAddedNotification {
                            thread_id: self.thread.id.clone(),
                            turn_id: self.turn_id.clone(),
                            item_id,
                            summary_index,
                        },
                    ))
                    .await;
                }
                ModelEvent::ReasoningSummaryTextDelta {
                    item_id,
                    summary_index,
                    delta,
                } => {
                    if let Some(OpenItem::Reasoning { summary, .. }) = open.get_mut(&item_id) {
                        append_part(summary, summary_index, &delta);
                    }
                    self.emit(ServerNotification::ReasoningSummaryTextDelta(
                        ReasoningSummaryTextDeltaNotification {
                            thread_id: self.thread.id.clone(),
                            turn_id: self.turn_id.clone(),
                            item_id,
                            delta,
                            summary_index,
                        },
                    ))
                    .await;
                }
                ModelEvent::ReasoningTextDelta {
                    item_id,
                    content_index,
                    delta,
                } => {
                    if let Some(OpenItem::Reasoning { content, .. }) = open.get_mut(&item_id) {
                        append_part(content, content_index, &delta);
                    }
                    self.emit(ServerNotification::ReasoningTextDelta(
                        ReasoningTextDeltaNotification {
                            thread_id: self.thread.id.clone(),
                            turn_id: self.turn_id.clone(),
                            item_id,
                            delta,
                            content_index,
                        },
                    ))
                    .await;
                }
                ModelEvent::OutputItemDone(item) => {
                    if let Some(call) = ToolCall::from_item(&item) {
                        // Tools run as their call arrives, so the user sees them at once.
                        self.record_history(item);
                        called_tools = true;
                        let outcome = self.run_tool(&call).await;
                        items.extend(outcome.items);
                        self.record_history(outcome.output);
                        for follow_up in outcome.follow_up {
                            self.record_history(follow_up);
                        }
                        if outcome.interrupt || self.cancel.is_cancelled() {
                            return self.interrupted(&mut stream, RESPONSE_END_WAIT).await;
                        }
                        continue;
                    }
                    if let Some(completed) = self
                        .message_done_in_plan_mode(&item, &mut open, plan.as_mut())
                        .await
                    {
                        items.extend(completed);
                    } else if let Some(completed) = self.item_done(item, &mut open).await {
                        items.push(completed);
                    }
                }
                ModelEvent::Completed { usage, .. } => {
                    self.plan_response_end(&mut open, plan.as_mut()).await;
                    self.record_usage(usage.unwrap_or_default()).await;
                    self.emit_rate_limits().await;
                    self.emit_turn_diff().await;
                    return RoundEnd::Completed {
                        needs_follow_up: called_tools,
                    };
                }
            }
        }
    }

    /// Ends an interrupted round. The model's response still reports its token usage, as
    /// every response does, when its end arrives within `wait` (zero: only when it has
    /// already arrived); the turn never waits longer for the model.
    async fn interrupted<S>(&self, stream: &mut S, wait: Duration) -> RoundEnd
    where
        S: Stream<Item = Result<RetryEvent, ModelError>> + Unpin,
    {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let next = if wait.is_zero() {
                stream.next().now_or_never()
            } else {
                tokio::time::timeout_at(deadline, stream.next()).await.ok()
            };
            match next {
                Some(Some(Ok(RetryEvent::Event(ModelEvent::Completed { usage, .. })))) => {
                    self.record_usage(usage.unwrap_or_default()).await;
                    break;
                }
                Some(Some(Ok(RetryEvent::Event(_)))) => {}
                _ => break,
            }
        }
        RoundEnd::Interrupted
    }

    /// Adds a model response's usage to the thread's and reports it
    /// (`thread/tokenUsage/updated`), with the model's context window when known.
    pub(super) async fn record_usage(&self, last: TokenUsageBreakdown) {
        let window = self
            .context_window()
            .await
            .and_then(|window| i64::try_from(window).ok());
        let usage = {
            let mut state = lock(&self.thread.state);
            let mut usage = state.token_usage.clone().unwrap_or_default();
            usage.total = add_usage(usage.total, last);
            usage.last = last;
            usage.model_context_window = window;
            state.token_usage = Some(usage.clone());
            state.record(&RolloutRecord::TokenUsage {
                turn_id: self.turn_id.clone(),
                usage: usage.clone(),
            });
            usage
        };
        self.emit(ServerNotification::ThreadTokenUsageUpdated(
            ThreadTokenUsageUpdatedNotification {
                thread_id: self.thread.id.clone(),
                turn_id: self.turn_id.clone(),
                token_usage: usage,
            },
        ))
        .await;
    }

    /// Ends a completed or interrupted turn: status `idle`, then `turn/completed`.
    async fn finish(self, status: TurnStatus, items: Vec<ThreadItem>) {
        if status == TurnStatus::Interrupted {
            // Interrupt kills every command of the thread, also those left running in the
            // background for `write_stdin`.
            self.thread.tools.unified.terminate_all();
            lock(&self.thread.tools.open_commands).clear();
        }
        let completed_at = unix_seconds();
        let duration_ms = unix_millis() - self.started_at_ms;
        let full = self.turn_snapshot(
            status,
            items.clone(),
            TurnItemsView::Full,
            None,
            Some(completed_at),
        );
        let summary_items: Vec<ThreadItem> = items
            .iter()
            .rev()
            .find(|item| matches!(item.details, ThreadItemDetails::AgentMessage { .. }))
            .cloned()
            .into_iter()
            .collect();
        let reported = match status {
            TurnStatus::Completed => self.turn_snapshot(
                status,
                summary_items,
                TurnItemsView::Summary,
                None,
                Some(completed_at),
            ),
            _ => self.turn_snapshot(
                status,
                Vec::new(),
                TurnItemsView::NotLoaded,
                None,
                Some(completed_at),
            ),
        };
        if !self
            .end()
            .close(full, ThreadStatus::Idle, None, completed_at, duration_ms)
            .await
        {
            return;
        }
        self.emit(ServerNotification::ThreadStatusChanged(
            ThreadStatusChangedNotification {
                thread_id: self.thread.id.clone(),
                status: ThreadStatus::Idle,
            },
        ))
        .await;
        self.emit(ServerNotification::TurnCompleted(TurnNotification {
            thread_id: self.thread.id.clone(),
            turn: reported,
        }))
        .await;
        if status == TurnStatus::Completed {
            crate::engine::queue::start_next_queued(&self.engine, &self.thread).await;
        }
    }

    /// Ends a failed turn: status `systemError`, `error`, then `turn/completed`.
    async fn finish_failed(self, error: TurnError) {
        self.end().fail(error).await;
    }
}
