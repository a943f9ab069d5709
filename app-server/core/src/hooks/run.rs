//! Running one hook: `sh -c COMMAND` in the thread's working directory with the
//! policy-built environment of commands, the event as JSON on stdin, its timeout, and its
//! output read the way the reference reads it.
//!
//! Exit status 0 with empty output lets the turn go on; JSON output may add context for the
//! model (`hookSpecificOutput.additionalContext`), block (`decision: "block"` with a `reason`,
//! or, before a tool call, `permissionDecision: "deny"`) or warn the user (`systemMessage`);
//! plain text is context on `UserPromptSubmit`. Exit status 2 blocks with stderr as the
//! reason. Any other status, a timeout or output the event cannot take fails the run, and
//! the turn goes on as if the hook had not run.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use app_server_protocol::hooks::{
    HookEventName, HookExecutionMode, HookHandlerType, HookOutputEntry, HookOutputEntryKind,
    HookRunStatus, HookRunSummary, HookScope,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::hooks::Hook;
use crate::tools::exec::process::{SpawnSpec, spawn};
use crate::tools::exec::run::{RunOptions, run};

/// The most bytes of each of a hook's output streams that are kept.
pub const MAX_HOOK_OUTPUT_BYTES: usize = 1024 * 1024;

/// Where and how the hooks of one turn run.
#[derive(Clone, Debug)]
pub struct HookEnvironment {
    /// The thread's working directory.
    pub cwd: PathBuf,
    /// The policy-built environment of commands.
    pub environment: BTreeMap<OsString, OsString>,
    /// Cancelled when the turn is interrupted: running hooks are killed.
    pub cancel: CancellationToken,
}

/// What one run of a hook decided.
#[derive(Clone, Debug, PartialEq)]
pub struct HookDecision {
    /// The run as `hook/completed` reports it.
    pub summary: HookRunSummary,
    /// Why it blocked what it guards, when it did.
    pub block_reason: Option<String>,
    /// Context it added for the model.
    pub contexts: Vec<String>,
}

/// The summary `hook/started` reports for the run `id` of `hook` starting at `started_at`.
pub fn running_summary(hook: &Hook, id: String, started_at: i64) -> HookRunSummary {
    HookRunSummary {
        id,
        event_name: hook.metadata.event_name,
        handler_type: HookHandlerType::Command,
        execution_mode: HookExecutionMode::Sync,
        scope: HookScope::Turn,
        source_path: hook.metadata.source_path.clone(),
        source: hook.metadata.source,
        display_order: hook.metadata.display_order,
        status: HookRunStatus::Running,
        status_message: hook.metadata.status_message.clone(),
        started_at,
        completed_at: None,
        duration_ms: None,
        entries: Vec::new(),
    }
}

/// Runs `hook` as the run `id` with `input` (the event's JSON) on its stdin and reads what it
/// decided.
pub async fn run_hook(
    hook: &Hook,
    id: String,
    input: &Value,
    environment: &HookEnvironment,
) -> HookDecision {
    let started_at = crate::clock::unix_seconds();
    let mut summary = running_summary(hook, id, started_at);
    let spec = SpawnSpec {
        argv: vec!["/bin/sh".into(), "-c".into(), hook.command.clone()],
        cwd: environment.cwd.clone(),
        environment: environment.environment.clone(),
        stdin: true,
        tty: None,
    };
    let outcome = match spawn(spec) {
        Ok(process) => {
            let control = process.control();
            let payload = input.to_string().into_bytes();
            // A hook that never reads its stdin must not stall the run: write beside it.
            tokio::spawn(async move {
                let _ = control.write_stdin(&payload).await;
                let _ = control.close_stdin().await;
            });
            let result = run(
                process,
                RunOptions {
                    timeout: Some(Duration::from_secs(hook.metadata.timeout_sec)),
                    output_cap: Some(MAX_HOOK_OUTPUT_BYTES),
                    on_chunk: None,
                    buffer_output: true,
                    cancel: environment.cancel.clone(),
                },
            )
            .await;
            summary.duration_ms = Some(result.duration.as_millis() as i64);
            if result.timed_out {
                Err(format!(
                    "hook timed out after {}s",
                    hook.metadata.timeout_sec
                ))
            } else if result.cancelled {
                Err("hook was stopped: the turn was interrupted".to_owned())
            } else {
                Ok(result)
            }
        }
        Err(error) => {
            summary.duration_ms = Some(0);
            Err(format!("hook could not start: {error}"))
        }
    };
    summary.completed_at = Some(crate::clock::unix_seconds());
    let mut decision = HookDecision {
        summary,
        block_reason: None,
        contexts: Vec::new(),
    };
    match outcome {
        Err(error) => decision.fail(error),
        Ok(result) => {
            let stdout = String::from_utf8_lossy(&result.stdout).into_owned();
            let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
            match result.exit_code {
                0 => decision.read_output(hook.metadata.event_name, stdout.trim()),
                2 => match stderr.trim() {
                    "" => decision.fail(format!(
                        "{} hook exited with code 2 but did not write a blocking reason to stderr",
                        event_title(hook.metadata.event_name)
                    )),
                    reason => decision.block(reason.to_owned()),
                },
                code => decision.fail(format!("hook exited with code {code}")),
            }
        }
    }
    decision
}

impl HookDecision {
    fn entry(&mut self, kind: HookOutputEntryKind, text: String) {
        self.summary.entries.push(HookOutputEntry { kind, text });
    }

    fn fail(&mut self, error: String) {
        self.summary.status = HookRunStatus::Failed;
        self.entry(HookOutputEntryKind::Error, error);
    }

    fn block(&mut self, reason: String) {
        self.summary.status = HookRunStatus::Blocked;
        self.entry(HookOutputEntryKind::Feedback, reason.clone());
        self.block_reason = Some(reason);
    }

    fn context(&mut self, text: String) {
        self.entry(HookOutputEntryKind::Context, text.clone());
        self.contexts.push(text);
    }

    /// Reads the stdout of a run that exited 0.
    fn read_output(&mut self, event: HookEventName, stdout: &str) {
        self.summary.status = HookRunStatus::Completed;
        if stdout.is_empty() {
            return;
        }
        let Ok(Value::Object(output)) = serde_json::from_str::<Value>(stdout) else {
            match event {
                HookEventName::UserPromptSubmit => self.context(stdout.to_owned()),
                HookEventName::Stop => {
                    self.fail("hook returned invalid stop hook JSON output".to_owned());
                }
                _ if stdout.starts_with('{') || stdout.starts_with('[') => self.fail(format!(
                    "hook returned invalid {} JSON output",
                    event_title(event)
                )),
                _ => {}
            }
            return;
        };
        let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
        if let Some(message) = text(output.get("systemMessage")) {
            self.entry(HookOutputEntryKind::Warning, message);
        }
        let specific = output.get("hookSpecificOutput");
        if let Some(context) = text(specific.and_then(|specific| specific.get("additionalContext")))
            .filter(|context| !context.trim().is_empty())
        {
            self.context(context);
        }
        let denied = event == HookEventName::PreToolUse
            && specific
                .and_then(|specific| specific.get("permissionDecision"))
                .and_then(Value::as_str)
                == Some("deny");
        if denied {
            let reason =
                text(specific.and_then(|specific| specific.get("permissionDecisionReason")))
                    .unwrap_or_else(|| "blocked by a hook".to_owned());
            self.block(reason);
            return;
        }
        if output.get("decision").and_then(Value::as_str) == Some("block") {
            match text(output.get("reason")).filter(|reason| !reason.trim().is_empty()) {
                Some(reason) => self.block(reason),
                None => self.fail(format!(
                    "{} hook returned decision \"block\" without a reason",
                    event_title(event)
                )),
            }
        }
    }
}

/// The event's name as hooks see it (`hook_event_name`).
pub fn event_title(event: HookEventName) -> &'static str {
    match event {
        HookEventName::PreToolUse => "PreToolUse",
        HookEventName::PostToolUse => "PostToolUse",
        HookEventName::UserPromptSubmit => "UserPromptSubmit",
        HookEventName::Stop => "Stop",
        HookEventName::PreModelRequest => "PreModelRequest",
        HookEventName::PostModelRequest => "PostModelRequest",
        HookEventName::PermissionRequest => "PermissionRequest",
        HookEventName::PreCompact => "PreCompact",
        HookEventName::PostCompact => "PostCompact",
        HookEventName::SessionStart => "SessionStart",
        HookEventName::SessionEnd => "SessionEnd",
        HookEventName::SubagentStart => "SubagentStart",
        HookEventName::SubagentStop => "SubagentStop",
        HookEventName::Interrupt => "Interrupt",
    }
}
