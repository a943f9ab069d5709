//! The operator's hooks in the engine: `hooks/list`, and the points of a turn where trusted
//! hooks run (the user's input, before and after each tool call, the model's last answer),
//! each run announced as `hook/started` and `hook/completed` (reading and trusting hooks is
//! `crate::hooks`).
//!
//! The hooks of one event run at once and the turn waits for all of them; a hook that blocks
//! stops what it guards (the input never reaches the model, the tool call does not run), and
//! context a hook adds reaches the model as a developer message.

use std::collections::BTreeMap;
use std::path::PathBuf;

use app_server_protocol::hooks::{
    HookEventName, HookPromptFragment, HookRunNotification, HooksListParams, HooksListResponse,
};
use app_server_protocol::item::{ThreadItemDetails, UserInput};
use app_server_protocol::tables::ServerNotification;
use serde_json::{Value, json};

use crate::engine::thread::SteerInput;
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::engine::{Engine, EngineError};
use crate::hooks::run::{HookDecision, HookEnvironment, event_title, run_hook, running_summary};
use crate::hooks::{Hook, Hooks};
use crate::model::{ContentItem, ResponseItem};
use crate::sync::lock;

/// The most times `Stop` hooks may send one turn's model back to work.
pub const MAX_STOP_CONTINUATIONS: usize = 8;
/// The most working directories one `hooks/list` may name.
const MAX_LIST_CWDS: usize = 64;

impl Engine {
    /// `hooks/list`: the hooks of the operator's `config.toml`, read now, for each working
    /// directory asked (the thread's with `threadId`, which must be one of the caller's loaded
    /// threads).
    pub async fn list_hooks(
        &self,
        params: HooksListParams,
    ) -> Result<HooksListResponse, EngineError> {
        let mut cwds = params.cwds.unwrap_or_default();
        if let Some(thread_id) = &params.thread_id {
            let Some(thread) = self.thread(thread_id) else {
                return Err(EngineError::InvalidRequest(format!(
                    "thread not loaded: {thread_id}"
                )));
            };
            cwds = vec![lock(&thread.state).meta.cwd.clone()];
        }
        if cwds.len() > MAX_LIST_CWDS {
            return Err(EngineError::InvalidRequest(format!(
                "hooks/list takes at most {MAX_LIST_CWDS} cwds, got {}",
                cwds.len()
            )));
        }
        if cwds.is_empty() {
            cwds.push(super::resolve_cwd(None));
        }
        let home = self.config().home.clone();
        let hooks = tokio::task::spawn_blocking(move || Hooks::load(&home))
            .await
            .map_err(|error| EngineError::Internal(format!("hooks/list failed: {error}")))?;
        Ok(HooksListResponse {
            data: cwds.into_iter().map(|cwd| hooks.list_entry(cwd)).collect(),
        })
    }
}

/// What the `UserPromptSubmit` hooks decided about a turn's input.
pub(super) enum PromptVerdict {
    /// The input goes to the model, followed by this context.
    Proceed(Vec<String>),
    /// A hook blocked the input: the turn ends without it.
    Blocked,
}

impl TurnTask {
    /// The trusted hooks of `event` (for a tool event, those matching `tool_name`), read from
    /// `config.toml` now.
    async fn hooks_for(&self, event: HookEventName, tool_name: &str) -> Vec<Hook> {
        let home = self.engine.config().home.clone();
        let tool_name = tool_name.to_owned();
        tokio::task::spawn_blocking(move || Hooks::load(&home).running(event, &tool_name))
            .await
            .unwrap_or_default()
    }

    /// Runs `hooks` at once with the event's `fields` on their stdin, announcing each run; a
    /// tool event's run ids end with `:CALL_ID`.
    async fn run_hooks(
        &self,
        hooks: &[Hook],
        fields: Value,
        call_id: Option<&str>,
    ) -> Vec<HookDecision> {
        if hooks.is_empty() {
            return Vec::new();
        }
        let (input, environment) = {
            let state = lock(&self.thread.state);
            let meta = &state.meta;
            let mut input = json!({
                "session_id": meta.id,
                "turn_id": self.turn_id,
                "transcript_path": (!state.ephemeral)
                    .then(|| meta.rollout_path.to_string_lossy().into_owned()),
                "cwd": meta.cwd,
                "model": meta.model,
                "permission_mode": "default",
            });
            if let (Value::Object(input), Value::Object(fields)) = (&mut input, fields) {
                input.extend(fields);
            }
            let config = self.engine.config();
            let environment = HookEnvironment {
                cwd: PathBuf::from(&meta.cwd),
                environment: crate::tools::exec::environment::command_environment(
                    &config.shell_environment_policy,
                    &BTreeMap::new(),
                ),
                cancel: self.cancel.clone(),
            };
            (input, environment)
        };
        let run_id = |hook: &Hook| match call_id {
            Some(call_id) => format!("{}:{call_id}", hook.run_id()),
            None => hook.run_id(),
        };
        let started_at = crate::clock::unix_seconds();
        for hook in hooks {
            let summary = running_summary(hook, run_id(hook), started_at);
            self.announce(ServerNotification::HookStarted, summary)
                .await;
        }
        let decisions = futures::future::join_all(
            hooks
                .iter()
                .map(|hook| run_hook(hook, run_id(hook), &input, &environment)),
        )
        .await;
        for decision in &decisions {
            self.announce(ServerNotification::HookCompleted, decision.summary.clone())
                .await;
        }
        decisions
    }

    async fn announce(
        &self,
        notification: fn(HookRunNotification) -> ServerNotification,
        run: app_server_protocol::hooks::HookRunSummary,
    ) {
        let params = HookRunNotification {
            thread_id: self.thread.id.clone(),
            turn_id: Some(self.turn_id.clone()),
            run,
        };
        self.engine.sink.emit(notification(params)).await;
    }

    /// Adds context from hooks to the model's history as one developer message.
    fn add_hook_context(&self, contexts: &[String]) {
        if contexts.is_empty() {
            return;
        }
        let message = ResponseItem::Message {
            id: None,
            role: "developer".into(),
            content: contexts
                .iter()
                .map(|text| ContentItem::InputText { text: text.clone() })
                .collect(),
        };
        lock(&self.thread.state).push_history(&self.turn_id, message);
    }

    /// Runs the `UserPromptSubmit` hooks on the turn's input.
    pub(super) async fn user_prompt_hooks(&self, input: &SteerInput) -> PromptVerdict {
        let hooks = self.hooks_for(HookEventName::UserPromptSubmit, "").await;
        let prompt: String = input
            .input
            .iter()
            .filter_map(|input| match input {
                UserInput::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        let fields = json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt});
        let decisions = self.run_hooks(&hooks, fields, None).await;
        if decisions
            .iter()
            .any(|decision| decision.block_reason.is_some())
        {
            return PromptVerdict::Blocked;
        }
        PromptVerdict::Proceed(
            decisions
                .into_iter()
                .flat_map(|decision| decision.contexts)
                .collect(),
        )
    }

    /// Adds the context of the `UserPromptSubmit` hooks after the recorded input.
    pub(super) fn add_prompt_context(&self, contexts: &[String]) {
        self.add_hook_context(contexts);
    }

    /// Runs the `Stop` hooks once the model answered without tool calls; `true` when one sent
    /// the model back to work with a reason, which is added to the history as the next input.
    pub(super) async fn stop_hooks_continue(
        &self,
        items: &mut Vec<app_server_protocol::item::ThreadItem>,
        continuations: &mut usize,
    ) -> bool {
        // A turn that only compacts has no answer of the model's to judge.
        if *continuations >= MAX_STOP_CONTINUATIONS || self.compact_only {
            return false;
        }
        let hooks = self.hooks_for(HookEventName::Stop, "").await;
        if hooks.is_empty() {
            return false;
        }
        let last_message = items.iter().rev().find_map(|item| match &item.details {
            ThreadItemDetails::AgentMessage { text, .. } => Some(text.clone()),
            _ => None,
        });
        let fields = json!({
            "hook_event_name": "Stop",
            "stop_hook_active": *continuations > 0,
            "last_assistant_message": last_message,
        });
        let decisions = self.run_hooks(&hooks, fields, None).await;
        let fragments: Vec<HookPromptFragment> = decisions
            .iter()
            .filter_map(|decision| {
                Some(HookPromptFragment {
                    text: decision.block_reason.clone()?,
                    hook_run_id: decision.summary.id.clone(),
                })
            })
            .collect();
        if fragments.is_empty() || self.cancel.is_cancelled() {
            return false;
        }
        *continuations += 1;
        let message = ResponseItem::Message {
            id: None,
            role: "user".into(),
            content: fragments
                .iter()
                .map(|fragment| ContentItem::InputText {
                    text: format!(
                        "<hook_prompt hook_run_id=\"{}\">{}</hook_prompt>",
                        fragment.hook_run_id, fragment.text
                    ),
                })
                .collect(),
        };
        let details = ThreadItemDetails::HookPrompt {
            id: format!("msg_{}", uuid::Uuid::now_v7()),
            fragments,
        };
        let started = self.start_item(details.clone()).await;
        items.push(self.complete_item(&started, details).await);
        lock(&self.thread.state).push_history(&self.turn_id, message);
        true
    }

    /// Runs `call` between its `PreToolUse` and `PostToolUse` hooks: a blocking `PreToolUse`
    /// hook answers the model with its reason instead of running the call, and a blocking
    /// `PostToolUse` hook's reason (and any hook's context) follows the call's output.
    pub(super) async fn run_hooked_tool(&mut self, call: &ToolCall) -> ToolOutcome {
        let tool_name = hook_tool_name(&call.name);
        let hooks = self.hooks_for(HookEventName::PreToolUse, tool_name).await;
        let tool_input = hook_tool_input(call);
        let mut context = Vec::new();
        if !hooks.is_empty() {
            let fields = json!({
                "hook_event_name": event_title(HookEventName::PreToolUse),
                "tool_name": tool_name,
                "tool_input": tool_input,
                "tool_use_id": call.call_id,
            });
            let decisions = self.run_hooks(&hooks, fields, Some(&call.call_id)).await;
            if let Some(reason) = decisions
                .iter()
                .find_map(|decision| decision.block_reason.clone())
            {
                let text = match tool_input.get("command").and_then(Value::as_str) {
                    Some(command) if tool_name == "Bash" => {
                        format!("Command blocked by PreToolUse hook: {reason}. Command: {command}")
                    }
                    _ => format!(
                        "Tool call `{}` blocked by PreToolUse hook: {reason}",
                        call.name
                    ),
                };
                return call.reply(text);
            }
            context.extend(decisions.into_iter().flat_map(|decision| decision.contexts));
        }
        let mut outcome = self.run_tool_unhooked(call).await;
        let hooks = self.hooks_for(HookEventName::PostToolUse, tool_name).await;
        if !hooks.is_empty() {
            let response = match &outcome.output {
                ResponseItem::FunctionCallOutput { output, .. }
                | ResponseItem::CustomToolCallOutput { output, .. } => json!(output),
                _ => Value::Null,
            };
            let fields = json!({
                "hook_event_name": event_title(HookEventName::PostToolUse),
                "tool_name": tool_name,
                "tool_input": tool_input,
                "tool_response": response,
                "tool_use_id": call.call_id,
            });
            for decision in self.run_hooks(&hooks, fields, Some(&call.call_id)).await {
                context.extend(decision.block_reason);
                context.extend(decision.contexts);
            }
        }
        if !context.is_empty() {
            outcome.follow_up.push(ResponseItem::Message {
                id: None,
                role: "developer".into(),
                content: context
                    .into_iter()
                    .map(|text| ContentItem::InputText { text })
                    .collect(),
            });
        }
        outcome
    }
}

/// The name hooks see for a model tool: the shell tools are `Bash`, as in the hook
/// configurations written for other agents.
fn hook_tool_name(name: &str) -> &str {
    match name {
        "exec_command" | "shell" | "shell_command" | "local_shell" => "Bash",
        other => other,
    }
}

/// The `tool_input` hooks see: a shell command as `{"command": …}`, other calls' arguments
/// as sent (a freeform call's input as `{"input": …}`).
fn hook_tool_input(call: &ToolCall) -> Value {
    let arguments: Value = if call.freeform {
        json!({"input": call.payload})
    } else {
        serde_json::from_str(&call.payload).unwrap_or_else(|_| json!({"input": call.payload}))
    };
    match (hook_tool_name(&call.name), arguments.get("cmd")) {
        ("Bash", Some(command)) => json!({"command": command}),
        _ => arguments,
    }
}
