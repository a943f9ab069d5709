//! Context compaction: replacing a thread's model history with a summary.
//!
//! The model is asked, with the compaction prompt (the thread's own, set by
//! `newConversation.compactPrompt`; else `compact_prompt` in config; else the built-in one),
//! to summarise the conversation so far. The thread then continues from a new
//! history: the AGENTS.md message and the environment context, the summary, and the most
//! recent user messages (bounded). The turn shows it as a `contextCompaction` item, and the
//! rollout records the new history so that resume and fork rebuild the compacted thread.
//!
//! Compaction happens on request (`thread/compact/start`, a turn of its own) and
//! automatically inside a turn: before a model request whose estimated input exceeds
//! `model_auto_compact_token_limit` (default 90% of the model's context window: from
//! `model_context_window`, the models Tandem knows, or the provider's models endpoint), and
//! once after a provider answers that the context window is exceeded.

use std::time::Duration;

use app_server_protocol::item::{ThreadItem, ThreadItemDetails};
use app_server_protocol::notifications::{
    ContextCompactedNotification, ItemCompletedNotification, ItemStartedNotification,
    WarningNotification,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{CodexErrorInfo, TurnError};
use app_server_protocol::turn_requests::TurnStartParams;
use futures::StreamExt;

use crate::clock::unix_millis;
use crate::config::Config;
use crate::engine::settings::normalize_thread_id;
use crate::engine::thread::ThreadState;
use crate::engine::turn::TurnTask;
use crate::engine::turn_control::TurnLauncher;
use crate::engine::{Engine, EngineError, prompt};
use crate::model::context_window::known_context_window;
use crate::model::retry::{RetryEvent, stream_with_retries};
use crate::model::{ContentItem, ModelEvent, ModelRequest, ResponseItem};
use crate::store::RolloutRecord;
use crate::sync::lock;

/// The built-in prompt that asks for the summary.
pub const COMPACT_PROMPT: &str = "You are handing this task over to another instance of yourself that will continue it with no access to the conversation above.
Write a handoff summary of the conversation so far: the user's goal and constraints, what has been done (files read and changed, commands run and their results), decisions made and why, what remains to be done, and anything the next step depends on.
Be concrete: keep paths, names, commands and error messages exactly. Write only the summary.";

/// The line that introduces the summary in the compacted history.
pub const SUMMARY_PREFIX: &str = "The conversation so far was compacted. This is the summary that was written for you to continue from:";

/// The warning emitted after each compaction (`warning`; `codex/event` `warning` over MCP).
pub const COMPACTION_WARNING: &str = "The conversation was compacted into a summary. Long threads and repeated compactions make the model less accurate: start a new thread when you can, to keep threads small and focused.";

/// Cap on the recent user messages kept verbatim, in estimated tokens.
const KEPT_USER_MESSAGE_TOKENS: u64 = 20_000;

/// Share of the context window used as the automatic limit when none is configured.
const DEFAULT_LIMIT_PERCENT: u64 = 90;

/// Longest a model request waits for the provider's report of the context window; the read
/// starts when the thread starts, so this wait is normally over at once.
const CONTEXT_WINDOW_WAIT: Duration = Duration::from_secs(2);

impl Engine {
    /// `thread/compact/start`: prepares a turn that only compacts. Refused while a turn runs.
    pub fn start_compaction(&self, thread_id: &str) -> Result<TurnLauncher, EngineError> {
        let id = normalize_thread_id(thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        if lock(&thread.state).active.is_some() {
            return Err(EngineError::InvalidRequest(
                "cannot compact while a turn is in progress".into(),
            ));
        }
        let params = TurnStartParams {
            thread_id: id,
            ..TurnStartParams::default()
        };
        let (_, launcher) = self.start_turn(params)?;
        let Some(mut launcher) = launcher else {
            return Err(EngineError::InvalidRequest(
                "cannot compact while a turn is in progress".into(),
            ));
        };
        launcher.task.compact_only = true;
        Ok(launcher)
    }
}

/// A thread's compaction keys: the server's config with the thread's own `config` overrides
/// (`thread/start`) applied, so that an override wins for that thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextLimits {
    /// `model_context_window`.
    pub model_context_window: Option<u64>,
    /// `model_auto_compact_token_limit`.
    pub model_auto_compact_token_limit: Option<u64>,
}

impl ContextLimits {
    /// The keys of `config`.
    pub fn from_config(config: &Config) -> ContextLimits {
        ContextLimits {
            model_context_window: config.model_context_window,
            model_auto_compact_token_limit: config.model_auto_compact_token_limit,
        }
    }
}

/// The estimated input above which a request is compacted first, if any:
/// `model_auto_compact_token_limit`, else 90% of the model's context window.
pub fn auto_compact_limit(limits: &ContextLimits, context_window: Option<u64>) -> Option<u64> {
    limits
        .model_auto_compact_token_limit
        .or_else(|| context_window.map(|window| window.saturating_mul(DEFAULT_LIMIT_PERCENT) / 100))
}

/// The model's context window: `model_context_window`, else the window Tandem knows for the
/// model's slug, else the one the provider's models endpoint reports (read once per provider
/// in the background; a request waits at most [`CONTEXT_WINDOW_WAIT`] for it).
pub async fn context_window(
    limits: &ContextLimits,
    client: &dyn crate::model::ModelClient,
    model: &str,
) -> Option<u64> {
    if let Some(window) = limits
        .model_context_window
        .or_else(|| known_context_window(model))
    {
        return Some(window);
    }
    tokio::time::timeout(CONTEXT_WINDOW_WAIT, client.context_window(model))
        .await
        .unwrap_or_else(|_elapsed| {
            tracing::debug!(
                model,
                "the provider's context window is not known yet; no automatic compaction for this request"
            );
            None
        })
}

/// Starts reading the provider's context windows in the background when the configuration
/// leaves the compaction limit to them, so that the first turn finds them read.
pub fn prefetch_context_window(
    limits: &ContextLimits,
    client: &dyn crate::model::ModelClient,
    model: &str,
) {
    if limits.model_auto_compact_token_limit.is_none()
        && limits.model_context_window.is_none()
        && known_context_window(model).is_none()
    {
        client.prefetch_context_windows();
    }
}

/// A rough token count of a request's input: four bytes of JSON per token, the usual
/// estimate when no tokenizer for the model is at hand.
pub fn estimate_tokens(request: &ModelRequest) -> u64 {
    let history: usize = request
        .input
        .iter()
        .map(|item| serde_json::to_vec(item).map_or(0, |bytes| bytes.len()))
        .sum();
    let tools: usize = request
        .tools
        .iter()
        .map(|tool| tool.description.len() + tool.parameters.to_string().len())
        .sum();
    u64::try_from(request.instructions.len() + history + tools).unwrap_or(u64::MAX) / 4
}

/// Whether a turn error says the context window was exceeded.
pub fn is_context_window_error(error: &TurnError) -> bool {
    matches!(
        error.codex_error_info,
        Some(CodexErrorInfo::ContextWindowExceeded)
    )
}

impl TurnTask {
    /// The model's context window (see [`context_window`]).
    pub(super) async fn context_window(&self) -> Option<u64> {
        let (client, model, limits) = {
            let state = lock(&self.thread.state);
            (
                state.client.clone(),
                state.meta.model.clone(),
                state.context_limits,
            )
        };
        context_window(&limits, client.as_ref(), &model).await
    }

    /// The automatic compaction limit of this thread's model, if any.
    async fn auto_compact_limit(&self) -> Option<u64> {
        let limits = lock(&self.thread.state).context_limits;
        auto_compact_limit(&limits, self.context_window().await)
    }

    /// Whether the next request would exceed the automatic compaction limit.
    pub(super) async fn should_compact(&self) -> bool {
        let Some(limit) = self.auto_compact_limit().await else {
            return false;
        };
        let (request, _, _) = self.build_request();
        // Nothing to gain when the history is only the initial context and this turn's input.
        estimate_tokens(&request) > limit && user_messages(&request.input).len() > 1
    }

    /// Compacts the thread's history, emitting the `contextCompaction` item. On failure the
    /// history is left as it was and the error is returned.
    pub(super) async fn compact(&mut self) -> Result<ThreadItem, TurnError> {
        let started_at_ms = unix_millis();
        let item_id = format!("compact_{}", uuid::Uuid::now_v7().simple());
        let details = ThreadItemDetails::ContextCompaction {
            id: item_id.clone(),
        };
        self.engine
            .sink
            .emit(ServerNotification::ItemStarted(ItemStartedNotification {
                item: ThreadItem {
                    details: details.clone(),
                    started_at_ms: Some(started_at_ms),
                    completed_at_ms: None,
                },
                thread_id: self.thread.id.clone(),
                turn_id: self.turn_id.clone(),
                started_at_ms,
            }))
            .await;
        let summary = self.request_summary().await?;
        // Kept messages must leave room below the limit, or every request would compact.
        let budget = self
            .auto_compact_limit()
            .await
            .map_or(KEPT_USER_MESSAGE_TOKENS, |limit| {
                KEPT_USER_MESSAGE_TOKENS.min(limit / 4)
            });
        let completed_at_ms = unix_millis();
        let completed = ThreadItem {
            details,
            started_at_ms: Some(started_at_ms),
            completed_at_ms: Some(completed_at_ms),
        };
        {
            let mut state = lock(&self.thread.state);
            let history = compacted_history(&state, &summary, budget);
            replace_history(&mut state, history, &self.turn_id);
            state.record(&RolloutRecord::Item {
                turn_id: self.turn_id.clone(),
                item: completed.clone(),
            });
        }
        self.engine
            .sink
            .emit(ServerNotification::ItemCompleted(
                ItemCompletedNotification {
                    item: completed.clone(),
                    thread_id: self.thread.id.clone(),
                    turn_id: self.turn_id.clone(),
                    content_token_count: None,
                    completed_at_ms,
                },
            ))
            .await;
        self.engine
            .sink
            .emit(ServerNotification::ThreadCompacted(
                ContextCompactedNotification {
                    thread_id: self.thread.id.clone(),
                    turn_id: self.turn_id.clone(),
                },
            ))
            .await;
        // Every compaction loses detail; the user hears so, as from the reference's local
        // compaction.
        self.engine
            .sink
            .emit(ServerNotification::Warning(WarningNotification {
                thread_id: Some(self.thread.id.clone()),
                message: COMPACTION_WARNING.to_string(),
            }))
            .await;
        Ok(completed)
    }

    /// Asks the model for the summary: the history plus the compaction prompt, no tools.
    async fn request_summary(&self) -> Result<String, TurnError> {
        let (mut request, policy, client) = self.build_request();
        // The thread's own prompt (`newConversation.compactPrompt`), else config, else ours.
        let thread_prompt = lock(&self.thread.state).meta.compact_prompt.clone();
        let compact_prompt = thread_prompt
            .or_else(|| self.engine.config().compact_prompt.clone())
            .unwrap_or_else(|| COMPACT_PROMPT.to_string());
        request.tools = Vec::new();
        request.output_schema = None;
        request.input.push(ResponseItem::Message {
            id: None,
            role: "user".into(),
            content: vec![ContentItem::InputText {
                text: compact_prompt,
            }],
        });
        let mut stream = Box::pin(stream_with_retries(client, request, policy));
        let mut summary = String::new();
        let mut deltas = String::new();
        loop {
            let event = tokio::select! {
                biased;
                () = self.cancel.cancelled() => return Err(interrupted()),
                event = stream.next() => event,
            };
            match event {
                None => return Err(interrupted_stream()),
                Some(Err(error)) => return Err(error.to_turn_error()),
                Some(Ok(RetryEvent::Retrying { .. })) => deltas.clear(),
                Some(Ok(RetryEvent::Event(ModelEvent::OutputTextDelta { delta, .. }))) => {
                    deltas.push_str(&delta);
                }
                Some(Ok(RetryEvent::Event(ModelEvent::OutputItemDone(
                    ResponseItem::Message { role, content, .. },
                )))) if role == "assistant" => {
                    for part in content {
                        if let ContentItem::OutputText { text } = part {
                            summary.push_str(&text);
                        }
                    }
                }
                Some(Ok(RetryEvent::Event(ModelEvent::Completed { usage, .. }))) => {
                    // The summary request is part of the thread's usage like any other.
                    if let Some(usage) = usage {
                        self.record_usage(usage).await;
                    }
                    break;
                }
                Some(Ok(RetryEvent::Event(_))) => {}
            }
        }
        if summary.is_empty() {
            summary = deltas;
        }
        if summary.trim().is_empty() {
            return Err(TurnError {
                message: "compaction failed: the model returned an empty summary".into(),
                codex_error_info: Some(CodexErrorInfo::Other),
                additional_details: None,
                misalignment: None,
            });
        }
        Ok(summary)
    }
}

fn interrupted() -> TurnError {
    TurnError {
        message: "compaction interrupted".into(),
        codex_error_info: Some(CodexErrorInfo::Other),
        additional_details: None,
        misalignment: None,
    }
}

fn interrupted_stream() -> TurnError {
    TurnError {
        message: "stream disconnected before completion: stream ended without a completed response"
            .into(),
        codex_error_info: Some(CodexErrorInfo::ResponseStreamDisconnected {
            http_status_code: None,
        }),
        additional_details: None,
        misalignment: None,
    }
}

/// The history a compacted thread continues from: the initial context (AGENTS.md message,
/// the skills message, then the environment context for the current cwd), the summary, then
/// the recent user messages within `budget` estimated tokens, so that the latest request
/// comes last.
fn compacted_history(state: &ThreadState, summary: &str, budget: u64) -> Vec<ResponseItem> {
    let mut history: Vec<ResponseItem> = ["# AGENTS.md instructions", "<skills_instructions>"]
        .iter()
        .filter_map(|prefix| {
            state
                .history
                .iter()
                .find(|item| message_starts_with(item, prefix))
                .cloned()
        })
        .collect();
    history.push(prompt::environment_context(
        &state.meta.cwd,
        &prompt::today(),
    ));
    history.push(ResponseItem::Message {
        id: None,
        role: "user".into(),
        content: vec![ContentItem::InputText {
            text: format!("{SUMMARY_PREFIX}\n\n{}", summary.trim()),
        }],
    });
    let mut budget = budget;
    let mut kept: Vec<ResponseItem> = Vec::new();
    for message in user_messages(&state.history).into_iter().rev() {
        let tokens = serde_json::to_vec(message).map_or(0, |bytes| bytes.len() as u64) / 4;
        if tokens > budget {
            break;
        }
        budget -= tokens;
        kept.push(message.clone());
    }
    kept.reverse();
    history.extend(kept);
    history
}

/// Installs a compacted history: records it, and moves every turn's history start inside it
/// (the turns before the compaction now live in the summary).
fn replace_history(state: &mut ThreadState, history: Vec<ResponseItem>, turn_id: &str) {
    state.record(&RolloutRecord::Compacted {
        turn_id: turn_id.to_string(),
        history: history.clone(),
    });
    let len = history.len();
    for (_, start) in &mut state.turn_starts {
        *start = (*start).min(len);
    }
    state.environment_sent_for = Some(state.meta.cwd.clone());
    state.history = history;
}

/// The messages the user wrote, oldest first: user-role messages that are not injected
/// context (AGENTS.md, environment context) or an earlier summary.
fn user_messages(history: &[ResponseItem]) -> Vec<&ResponseItem> {
    history
        .iter()
        .filter(|item| {
            matches!(item, ResponseItem::Message { role, .. } if role == "user")
                && !message_starts_with(item, "# AGENTS.md instructions")
                && !message_starts_with(item, "<environment_context>")
                && !message_starts_with(item, SUMMARY_PREFIX)
        })
        .collect()
}

fn message_starts_with(item: &ResponseItem, prefix: &str) -> bool {
    match item {
        ResponseItem::Message { content, .. } => content.iter().any(
            |part| matches!(part, ContentItem::InputText { text } if text.starts_with(prefix)),
        ),
        _ => false,
    }
}
