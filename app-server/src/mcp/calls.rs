//! Running the `codex` and `codex-reply` tools: configuration, thread start or resume, one
//! turn, waiting for its end (or the client's cancellation), and the result.
//!
//! Threads are shared across MCP sessions through the store, but a loaded thread belongs to
//! the one session whose engine loaded it: [`ThreadOwners`] refuses a second session until the
//! first one ends, so two engines never write one rollout.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::thread::TurnStatus;
use app_server_protocol::thread_requests::{
    ThreadResumeParams, ThreadStartParams, ThreadStartResponse,
};
use app_server_protocol::turn_requests::TurnStartParams;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::mcp::events::{CallState, TurnEnd};
use crate::mcp::output::Route;
use crate::mcp::session::McpSession;
use crate::mcp::tools::{CodexArgs, CodexReplyArgs, error_result, success_result};
use tandem_core::engine::normalize_thread_id;
use tandem_core::sync::lock;

/// How long a cancelled call waits for its turn to wind down before giving up on it.
const INTERRUPT_GRACE: Duration = Duration::from_secs(30);

/// Which MCP session has each thread loaded, across the whole process.
#[derive(Default)]
pub struct ThreadOwners {
    owners: Mutex<HashMap<String, String>>,
}

impl ThreadOwners {
    /// Claims `thread_id` for `session_id`; fails with the current owner's id when another
    /// session has it.
    pub fn claim(&self, thread_id: &str, session_id: &str) -> Result<(), String> {
        let mut owners = lock(&self.owners);
        match owners.get(thread_id) {
            Some(owner) if owner != session_id => Err(owner.clone()),
            _ => {
                owners.insert(thread_id.to_string(), session_id.to_string());
                Ok(())
            }
        }
    }

    /// Releases one thread if `session_id` owns it.
    pub fn release(&self, thread_id: &str, session_id: &str) {
        let mut owners = lock(&self.owners);
        if owners
            .get(thread_id)
            .is_some_and(|owner| owner == session_id)
        {
            owners.remove(thread_id);
        }
    }

    /// Releases every thread of `session_id`.
    pub fn release_session(&self, session_id: &str) {
        lock(&self.owners).retain(|_, owner| owner != session_id);
    }
}

impl McpSession {
    /// `codex`: a new thread and its first turn. `None` when the client cancelled.
    pub(crate) async fn run_codex(
        &self,
        id: &RequestId,
        args: CodexArgs,
        progress_token: Option<Value>,
        cancel: CancellationToken,
    ) -> Option<Value> {
        let (params, turn_settings) = match self.thread_start_params(&args) {
            Ok(settings) => settings,
            Err(message) => return Some(error_result(None, &message)),
        };
        let started = match self.engine.start_thread(params).await {
            Ok(response) => response,
            Err(error) => {
                return Some(error_result(
                    None,
                    &format!("cannot start a thread: {error}"),
                ));
            }
        };
        let thread_id = started.thread.id.clone();
        if let Some(prompt) = args.compact_prompt.clone()
            && let Err(error) = self.engine.set_compact_prompt(&thread_id, prompt)
        {
            return Some(error_result(
                None,
                &format!("cannot start a thread: {error}"),
            ));
        }
        lock(&self.loaded).insert(thread_id.clone());
        if let Err(owner) = self.owners.claim(&thread_id, &self.shared.session_id) {
            // A fresh UUIDv7 cannot be owned already; refuse rather than share it.
            tracing::error!(%thread_id, %owner, "new thread already owned by another session");
            return Some(error_result(None, "internal error: thread id collision"));
        }
        tracing::info!(%thread_id, "thread started");
        self.run_turn(
            id,
            &thread_id,
            args.prompt,
            TurnOptions {
                settings: turn_settings,
                started: Some(started),
            },
            progress_token,
            cancel,
        )
        .await
    }

    /// `codex-reply`: the next turn on a thread of this session, or on a stored thread that
    /// no other live session has loaded. `None` when the client cancelled.
    pub(crate) async fn run_reply(
        &self,
        id: &RequestId,
        args: CodexReplyArgs,
        progress_token: Option<Value>,
        cancel: CancellationToken,
    ) -> Option<Value> {
        let thread_id = match normalize_thread_id(&args.thread_id) {
            Ok(thread_id) => thread_id,
            Err(error) => return Some(error_result(None, &format!("invalid threadId: {error}"))),
        };
        // The owner check comes first: another principal's thread is "no rollout found", as
        // a thread that does not exist, not "loaded by another session".
        if let Err(error) = self.engine.check_thread_owner(&thread_id).await {
            return Some(error_result(
                None,
                &format!("cannot continue thread {thread_id}: {error}"),
            ));
        }
        let session_id = &self.shared.session_id;
        if let Err(_owner) = self.owners.claim(&thread_id, session_id) {
            return Some(error_result(
                None,
                &format!(
                    "thread {thread_id} is loaded by another MCP session; continue it there, or wait until that session ends"
                ),
            ));
        }
        let loaded = lock(&self.loaded).contains(&thread_id);
        if !loaded {
            let params: ThreadResumeParams = match serde_json::from_value(
                json!({"threadId": thread_id, "excludeTurns": true}),
            ) {
                Ok(params) => params,
                Err(error) => return Some(error_result(None, &format!("internal error: {error}"))),
            };
            if let Err(error) = self.engine.resume_thread(params).await {
                self.owners.release(&thread_id, session_id);
                return Some(error_result(
                    None,
                    &format!("cannot continue thread {thread_id}: {error}"),
                ));
            }
            lock(&self.loaded).insert(thread_id.clone());
            tracing::info!(%thread_id, "thread resumed from the store");
        }
        self.run_turn(
            id,
            &thread_id,
            args.prompt,
            TurnOptions {
                settings: json!({}),
                started: None,
            },
            progress_token,
            cancel,
        )
        .await
    }

    /// `thread/start` params and extra `turn/start` settings (reasoning effort and summary,
    /// which `thread/start` does not take): the tool's arguments over the configuration with
    /// the requested profile and `config` overrides applied.
    fn thread_start_params(&self, args: &CodexArgs) -> Result<(ThreadStartParams, Value), String> {
        let mut overrides = args.config.clone().unwrap_or_default();
        if let Some(profile) = &args.profile {
            overrides.insert("profile".to_string(), json!(profile));
        }
        let base = self.engine.config();
        // Only the keys the operator lets a client set (`clients.allow_client_config`).
        let effective = if overrides.is_empty() {
            (*base).clone()
        } else {
            self.engine
                .client_config(&overrides)
                .map_err(|error| format!("invalid configuration: {error}"))?
        };
        let mut turn_settings = json!({});
        if effective.model_reasoning_effort != base.model_reasoning_effort {
            turn_settings["effort"] = json!(effective.model_reasoning_effort);
        }
        if effective.model_reasoning_summary != base.model_reasoning_summary {
            turn_settings["summary"] = json!(effective.model_reasoning_summary);
        }
        let params = ThreadStartParams {
            model: args.model.clone().or_else(|| effective.model.clone()),
            model_provider: Some(effective.model_provider.clone()),
            cwd: args.cwd.clone(),
            approval_policy: Some(args.approval_policy.unwrap_or(effective.approval_policy)),
            // Named only when the tool's arguments name it: the engine narrows the configured
            // mode to `clients.max_sandbox`, but refuses a mode the caller asked for beyond it
            // (a `sandbox_mode` in `config` counts as asked).
            sandbox: args.sandbox,
            base_instructions: args
                .base_instructions
                .clone()
                .or_else(|| effective.base_instructions.clone()),
            developer_instructions: args
                .developer_instructions
                .clone()
                .or_else(|| effective.developer_instructions.clone()),
            // The whole override set too, for the settings not named above (a provider's
            // `base_url`, retries…).
            config: (!overrides.is_empty()).then(|| overrides.clone()),
            ..ThreadStartParams::default()
        };
        Ok((params, turn_settings))
    }

    /// Runs one turn on a loaded, owned thread and builds the tool result.
    async fn run_turn(
        &self,
        id: &RequestId,
        thread_id: &str,
        prompt: String,
        options: TurnOptions,
        progress_token: Option<Value>,
        cancel: CancellationToken,
    ) -> Option<Value> {
        if cancel.is_cancelled() {
            return None;
        }
        let turn_settings = options.settings;
        let (done_sender, done) = oneshot::channel::<TurnEnd>();
        let opening = {
            let mut calls = lock(&self.shared.calls);
            if calls.thread_busy(thread_id) {
                return Some(error_result(
                    Some(thread_id),
                    &format!(
                        "thread {thread_id} already has a running turn; wait for it to finish"
                    ),
                ));
            }
            let mut call = CallState::new(progress_token);
            call.turn_done = Some(done_sender);
            if !calls.insert(id.clone(), call) {
                return Some(error_result(
                    None,
                    &format!("request id {id} is already running"),
                ));
            }
            if calls.bind_thread(id, thread_id).is_err() {
                calls.remove(id);
                return Some(error_result(Some(thread_id), "thread is busy"));
            }
            options
                .started
                .as_ref()
                .map(|started| calls.session_events(id, started))
                .unwrap_or_default()
        };
        // A new conversation opens with `session_configured` and `mcp_startup_complete`.
        for message in opening {
            self.shared
                .outbound
                .send(Route::Request(id.clone()), message)
                .await;
        }
        let mut params = json!({
            "threadId": thread_id,
            "input": [{"type": "text", "text": prompt}],
        });
        if let (Some(params), Value::Object(settings)) = (params.as_object_mut(), turn_settings) {
            params.extend(settings);
        }
        let params: Result<TurnStartParams, _> = serde_json::from_value(params);
        let started = match params {
            Ok(params) => self
                .engine
                .start_turn(params)
                .map_err(|error| error.to_string()),
            Err(error) => Err(error.to_string()),
        };
        let (turn_id, launcher) = match started {
            Ok((turn, Some(launcher))) => (turn.id, launcher),
            Ok((_, None)) => {
                lock(&self.shared.calls).remove(id);
                return Some(error_result(
                    Some(thread_id),
                    "the thread already has a running turn",
                ));
            }
            Err(message) => {
                lock(&self.shared.calls).remove(id);
                return Some(error_result(
                    Some(thread_id),
                    &format!("cannot start a turn: {message}"),
                ));
            }
        };
        launcher.launch();
        tracing::info!(%thread_id, %turn_id, "turn started");

        let mut done = done;
        let turn = tokio::select! {
            turn = &mut done => turn.ok(),
            () = cancel.cancelled() => {
                if let Ok(handle) = self.engine.prepare_interrupt(thread_id, &turn_id) {
                    handle.interrupt();
                }
                // Let the turn record its end so that its events reach the client.
                let _ = tokio::time::timeout(INTERRUPT_GRACE, &mut done).await;
                lock(&self.shared.calls).remove(id);
                return None;
            }
        };
        let status = turn.as_ref().map(|turn| turn.status);
        tracing::info!(%thread_id, %turn_id, ?status, "turn ended");
        let call = lock(&self.shared.calls).remove(id);
        let (message, notes) = match call {
            Some(call) => (call.last_agent_message.unwrap_or_default(), call.notes),
            None => (String::new(), Vec::new()),
        };
        Some(turn_result(thread_id, turn.as_ref(), &message, &notes))
    }
}

/// How to run a call's turn.
struct TurnOptions {
    /// Extra `turn/start` settings (reasoning effort and summary).
    settings: Value,
    /// For a new conversation, the started thread: its opening events go out first.
    started: Option<ThreadStartResponse>,
}

/// The tool result for a finished turn (`None`: the turn ended without `turn/completed`,
/// which happens when the session closes).
fn turn_result(thread_id: &str, turn: Option<&TurnEnd>, message: &str, notes: &[String]) -> Value {
    let status = turn.map(|turn| turn.status);
    let mut result = match status {
        Some(TurnStatus::Completed) => success_result(thread_id, message),
        Some(TurnStatus::Failed) => {
            let reason = turn
                .and_then(|turn| turn.error.as_deref())
                .unwrap_or("unknown error");
            error_result(Some(thread_id), &format!("the turn failed: {reason}"))
        }
        Some(TurnStatus::Interrupted) => error_result(Some(thread_id), "the turn was interrupted"),
        Some(TurnStatus::InProgress) | None => {
            error_result(Some(thread_id), "the turn ended without completing")
        }
    };
    if let Some(content) = result["content"].as_array_mut() {
        for note in notes {
            content.push(json!({"type": "text", "text": note}));
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn a_thread_belongs_to_one_session_until_released() {
        let owners = ThreadOwners::default();
        assert_eq!(owners.claim("t1", "a"), Ok(()));
        assert_eq!(owners.claim("t1", "a"), Ok(()));
        assert_eq!(owners.claim("t1", "b"), Err("a".to_string()));
        owners.release("t1", "b");
        assert_eq!(owners.claim("t1", "b"), Err("a".to_string()));
        owners.release_session("a");
        assert_eq!(owners.claim("t1", "b"), Ok(()));
    }

    #[test]
    fn results_explain_failures_and_fallback_approvals() {
        let turn = TurnEnd {
            status: TurnStatus::Failed,
            error: Some("model unreachable".to_string()),
        };
        assert_eq!(
            turn_result("t1", Some(&turn), "", &[]),
            json!({
                "content": [{"type": "text", "text": "the turn failed: model unreachable"}],
                "structuredContent": {"threadId": "t1", "content": "the turn failed: model unreachable"},
                "isError": true,
            })
        );
        let completed = TurnEnd {
            status: TurnStatus::Completed,
            error: None,
        };
        let result = turn_result(
            "t1",
            Some(&completed),
            "Done.",
            &["Approval was required".to_string()],
        );
        assert_eq!(
            result["structuredContent"],
            json!({"threadId": "t1", "content": "Done."})
        );
        assert_eq!(result["content"][1]["text"], "Approval was required");
        assert_eq!(result["isError"], false);
    }
}
