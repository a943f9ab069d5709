//! `exec_command` and `write_stdin`: commands as `commandExecution` items, behind the approval
//! policy and inside the sandbox.
//!
//! Item flow (transcripts `b` and `c`): when the user must be asked, the thread first turns
//! `waitingOnApproval`, then `item/started`, the request, `serverRequest/resolved`; accepted
//! commands stream `item/commandExecution/outputDelta` and end with `item/completed`.
//! `exec_command` calls that are `apply_patch` heredocs become file changes instead.

use std::path::{Path, PathBuf};
use std::time::Duration;

use app_server_protocol::item::{
    CommandAction, CommandExecutionSource, CommandExecutionStatus, ThreadItem, ThreadItemDetails,
};
use app_server_protocol::notifications::{ItemDeltaNotification, TerminalInteractionNotification};
use app_server_protocol::policy::SandboxPolicy;
use app_server_protocol::server_requests::{
    CommandExecutionApprovalDecision, CommandExecutionApprovalKind,
    CommandExecutionRequestApprovalParams,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::ThreadActiveFlag;
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};
use crate::engine::tools::patch::PatchForm;
use crate::engine::tools::policy::{
    CommandAssessment, assess_command, looks_sandbox_denied, may_retry_unsandboxed,
};
use crate::engine::tools::registry::ModelCall;
use crate::engine::tools::{OpenCommand, ToolCall, ToolOutcome, complete_item_of_turn};
use crate::engine::turn::TurnTask;
use crate::paths::resolve_lexically;
use crate::sync::lock;
use crate::tools::apply_patch::heredoc::parse_heredoc_invocation;
use crate::tools::exec::environment::command_environment;
use crate::tools::exec::format::format_exec_result;
use crate::tools::exec::shell::{join_command, shell_argv};
use crate::tools::exec::unified::{ExecStep, StartRequest, WriteRequest};
use crate::tools::{Tool, ToolFuture};

/// The model sees this when the user declines a command.
pub const DECLINED_OUTPUT: &str =
    "exec_command failed: CreateProcess { message: \"Rejected(\\\"rejected by user\\\")\" }";
/// The model sees this when the approval request itself failed.
pub const APPROVAL_FAILED_OUTPUT: &str =
    "exec_command failed: CreateProcess { message: \"Rejected(\\\"approval request failed\\\")\" }";
/// Most of a command's output kept in its item's `aggregatedOutput`.
const AGGREGATED_OUTPUT_CAP: usize = 1024 * 1024;

/// `exec_command` (`model-wire.md` §2.1).
pub(crate) struct ExecCommand;

impl Tool for ExecCommand {
    const NAME: &'static str = "exec_command";
    const DESCRIPTION: &'static str = "Runs a command in a PTY or pipes, returning output or a session ID for ongoing interaction.";
    type Args = ExecCommandArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(context: Self::Context<'a>, args: ExecCommandArgs) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.exec_command(context.call, args))
    }
}

/// `write_stdin` (`model-wire.md` §2.2).
pub(crate) struct WriteStdin;

impl Tool for WriteStdin {
    const NAME: &'static str = "write_stdin";
    const DESCRIPTION: &'static str =
        "Writes characters to an existing unified exec session and returns recent output.";
    type Args = WriteStdinArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(context: Self::Context<'a>, args: WriteStdinArgs) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.write_stdin(context.call, args))
    }
}

/// `exec_command` arguments. The counts are advertised as numbers, as Codex-tuned models
/// expect.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ExecCommandArgs {
    /// Shell command to execute.
    cmd: String,
    /// Optional working directory to run the command in; defaults to the turn cwd.
    #[serde(default)]
    workdir: Option<String>,
    /// Shell binary to launch. Defaults to the user's default shell.
    #[serde(default)]
    shell: Option<String>,
    /// Whether to run the shell with -l/-i semantics. Defaults to true.
    #[serde(default)]
    login: Option<bool>,
    /// Whether to allocate a TTY for the command. Defaults to false (plain pipes); set to true to open a PTY and access TTY process.
    #[serde(default)]
    tty: Option<bool>,
    /// How long to wait (in milliseconds) for output before yielding.
    #[serde(default)]
    #[schemars(with = "Option<f64>")]
    yield_time_ms: Option<u64>,
    /// Maximum number of tokens to return. Excess output will be truncated.
    #[serde(default)]
    #[schemars(with = "Option<f64>")]
    max_output_tokens: Option<usize>,
    /// Sandbox permissions for the command. Set to "require_escalated" to request running without sandbox restrictions; defaults to "use_default".
    #[serde(default)]
    sandbox_permissions: Option<String>,
    /// Only set if sandbox_permissions is "require_escalated". One sentence asking the user whether to allow the command, shown in the approval request.
    #[serde(default)]
    justification: Option<String>,
    /// Only set if sandbox_permissions is "require_escalated". A command prefix the user could approve for similar future commands.
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "offered as Codex offers it; an approval here covers the exact command only"
    )]
    prefix_rule: Option<Vec<String>>,
}

/// `write_stdin` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct WriteStdinArgs {
    /// Identifier of the running unified exec session.
    #[schemars(with = "f64")]
    session_id: i32,
    /// Bytes to write to stdin (may be empty to poll).
    #[serde(default)]
    chars: String,
    /// How long to wait (in milliseconds) for output before yielding.
    #[serde(default)]
    #[schemars(with = "Option<f64>")]
    yield_time_ms: Option<u64>,
    /// Maximum number of tokens to return. Excess output will be truncated.
    #[serde(default)]
    #[schemars(with = "Option<f64>")]
    max_output_tokens: Option<usize>,
}

/// One command, resolved and ready to ask about and run.
struct PreparedCommand {
    script: String,
    argv: Vec<String>,
    display: String,
    cwd: PathBuf,
    tty: bool,
    yield_time: Option<Duration>,
    max_output_tokens: Option<usize>,
}

/// A command run: the step the model sees and everything it printed.
struct RunOutput {
    step: ExecStep,
    aggregated: String,
}

/// How an approval question ended, for a command.
#[derive(Debug, PartialEq, Eq)]
enum CommandVerdict {
    Run,
    RunForSession,
    Declined,
    Cancelled,
    Failed,
    Withdrawn,
}

impl TurnTask {
    /// `exec_command`: intercepts `apply_patch` heredocs, applies the approval policy, runs the
    /// command (sandboxed unless allowed otherwise) and reports it as a `commandExecution`.
    async fn exec_command(&mut self, call: &ToolCall, args: ExecCommandArgs) -> ToolOutcome {
        let (thread_cwd, policy, sandbox) = {
            let state = lock(&self.thread.state);
            (
                PathBuf::from(&state.meta.cwd),
                state.meta.approval_policy,
                state.meta.sandbox.clone(),
            )
        };
        let sandbox = self.granted_sandbox(sandbox);
        let cwd = resolve_dir(&thread_cwd, args.workdir.as_deref());
        if let Some(heredoc) = parse_heredoc_invocation(&args.cmd) {
            let patch_cwd = resolve_dir(&cwd, heredoc.workdir.as_deref());
            return self
                .apply_patch_text(call, &heredoc.patch, &patch_cwd, PatchForm::Heredoc)
                .await;
        }
        let argv = shell_argv(&args.cmd, args.shell.as_deref(), args.login.unwrap_or(true));
        let command = PreparedCommand {
            display: join_command(&argv),
            script: args.cmd.clone(),
            argv,
            cwd,
            tty: args.tty.unwrap_or(false),
            yield_time: args.yield_time_ms.map(Duration::from_millis),
            max_output_tokens: args.max_output_tokens,
        };
        let escalate = args.sandbox_permissions.as_deref() == Some("require_escalated");
        let approved_for_session =
            lock(&self.thread.tools.approved_commands).contains(&command.argv);
        let ceiling = self.engine.access.max_sandbox();
        let assessment = assess_command(
            &policy,
            &sandbox,
            &command.script,
            escalate,
            approved_for_session,
            ceiling,
        );
        let (sandboxed, started) = match assessment {
            CommandAssessment::Refuse(message) => return call.reply(message),
            CommandAssessment::Run { sandboxed } => (
                sandboxed,
                self.start_item(command_item(call, &command)).await,
            ),
            CommandAssessment::Ask { sandboxed, reason } => {
                self.set_waiting(Some(ThreadActiveFlag::WaitingOnApproval))
                    .await;
                let started = self.start_item(command_item(call, &command)).await;
                let reason = reason.or(args.justification.clone());
                let verdict = self.ask_command(call, &command, &started, reason).await;
                match self.settle(call, &command, &started, verdict).await {
                    Some(outcome) => return outcome,
                    None => (sandboxed, started),
                }
            }
        };
        let step = self.run_command(call, &command, &sandbox, sandboxed).await;
        let step = match step {
            Ok(run)
                if sandboxed
                    && may_retry_unsandboxed(&policy, ceiling)
                    && looks_sandbox_denied(run.step.exit_code, &run.aggregated) =>
            {
                // The sandbox blocked it: retry outside only with the user's approval (or
                // the acceptForSession they already gave for this command).
                let verdict = if approved_for_session {
                    CommandVerdict::Run
                } else {
                    self.set_waiting(Some(ThreadActiveFlag::WaitingOnApproval))
                        .await;
                    let reason = Some(
                        "command failed in the sandbox; run it again without sandbox restrictions?"
                            .to_string(),
                    );
                    let verdict = self.ask_command(call, &command, &started, reason).await;
                    // Interrupted while waiting: the turn's end announces the status.
                    if verdict != CommandVerdict::Withdrawn {
                        self.set_waiting(None).await;
                    }
                    verdict
                };
                match verdict {
                    CommandVerdict::Run => self.run_command(call, &command, &sandbox, false).await,
                    CommandVerdict::RunForSession => {
                        self.remember_for_session(&command);
                        self.run_command(call, &command, &sandbox, false).await
                    }
                    // The first run's result stands; the model sees why it failed.
                    CommandVerdict::Declined | CommandVerdict::Failed => Ok(run),
                    CommandVerdict::Cancelled | CommandVerdict::Withdrawn => {
                        return self.finish_command(call, &started, Ok(run), true).await;
                    }
                }
            }
            other => other,
        };
        self.finish_command(call, &started, step, false).await
    }

    /// `write_stdin`: feeds or polls a running `exec_command` session.
    async fn write_stdin(&mut self, call: &ToolCall, args: WriteStdinArgs) -> ToolOutcome {
        let stdin = args.chars.clone();
        let request = WriteRequest {
            session_id: args.session_id,
            chars: args.chars,
            yield_time: args.yield_time_ms.map(Duration::from_millis),
            max_output_tokens: args.max_output_tokens,
            cancel: self.cancel.child_token(),
        };
        let step = match self.thread.tools.unified.write_stdin(request).await {
            Ok(step) => step,
            Err(error) => return call.reply(error.to_string()),
        };
        let item_id = lock(&self.thread.tools.open_commands)
            .get(&args.session_id)
            .map(|command| command.item.details.id().to_owned());
        if let Some(item_id) = item_id {
            self.engine
                .sink
                .emit(ServerNotification::CommandExecutionTerminalInteraction(
                    TerminalInteractionNotification {
                        thread_id: self.thread.id.clone(),
                        turn_id: self.turn_id.clone(),
                        item_id,
                        process_id: args.session_id.to_string(),
                        stdin,
                    },
                ))
                .await;
        }
        let mut items = Vec::new();
        let open = {
            let mut open = lock(&self.thread.tools.open_commands);
            match open.get_mut(&args.session_id) {
                Some(command) => {
                    append_capped(&mut command.output, &step.output);
                    if step.exit_code.is_some() {
                        open.remove(&args.session_id)
                    } else {
                        None
                    }
                }
                None => None,
            }
        };
        if let Some(open) = open {
            let details = finished_details(
                &open.item,
                &open.output,
                &step,
                CommandExecutionSource::UnifiedExecStartup,
            );
            items.push(complete_item_of_turn(self, &open.turn_id, &open.item, details).await);
        }
        ToolOutcome {
            output: call.output(format_exec_result(&step)),
            items,
            interrupt: false,
            follow_up: Vec::new(),
        }
    }

    /// Sends the approval request for `command` and reads the decision.
    async fn ask_command(
        &self,
        call: &ToolCall,
        command: &PreparedCommand,
        started: &ThreadItem,
        reason: Option<String>,
    ) -> CommandVerdict {
        let params = CommandExecutionRequestApprovalParams {
            kind: CommandExecutionApprovalKind::Command,
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            item_id: call.call_id.clone(),
            started_at_ms: started.started_at_ms.unwrap_or_default(),
            environment_id: Some("local".into()),
            reason,
            command: Some(command.display.clone()),
            cwd: Some(command.cwd.display().to_string()),
            command_actions: Some(command_actions(&command.script)),
            proposed_execpolicy_amendment: Some(command.argv.clone()),
            available_decisions: Some(vec![
                CommandExecutionApprovalDecision::Accept,
                CommandExecutionApprovalDecision::AcceptForSession,
                CommandExecutionApprovalDecision::AcceptWithExecpolicyAmendment {
                    execpolicy_amendment: command.argv.clone(),
                },
                CommandExecutionApprovalDecision::Decline,
                CommandExecutionApprovalDecision::Cancel,
            ]),
        };
        match self.ask(ApprovalRequest::Command(params)).await {
            ApprovalReply::Answered(ApprovalAnswer::Command(decision)) => match decision {
                CommandExecutionApprovalDecision::Accept => CommandVerdict::Run,
                // Without an exec policy engine, an amendment approves this exact command for
                // the thread, like acceptForSession.
                CommandExecutionApprovalDecision::AcceptForSession
                | CommandExecutionApprovalDecision::AcceptWithExecpolicyAmendment { .. } => {
                    CommandVerdict::RunForSession
                }
                CommandExecutionApprovalDecision::Decline => CommandVerdict::Declined,
                CommandExecutionApprovalDecision::Cancel => CommandVerdict::Cancelled,
            },
            ApprovalReply::Answered(other) => {
                tracing::warn!(
                    answer = other.kind(),
                    "command approval answered with the wrong kind"
                );
                CommandVerdict::Failed
            }
            ApprovalReply::Failed(message) => {
                tracing::warn!(message, "command approval request failed");
                CommandVerdict::Failed
            }
            ApprovalReply::Withdrawn => CommandVerdict::Withdrawn,
        }
    }

    /// Acts on the first approval: `None` means run; otherwise the call's outcome.
    async fn settle(
        &mut self,
        call: &ToolCall,
        command: &PreparedCommand,
        started: &ThreadItem,
        verdict: CommandVerdict,
    ) -> Option<ToolOutcome> {
        let (status, output, interrupt) = match verdict {
            CommandVerdict::Run => {
                self.set_waiting(None).await;
                return None;
            }
            CommandVerdict::RunForSession => {
                self.remember_for_session(command);
                self.set_waiting(None).await;
                return None;
            }
            CommandVerdict::Withdrawn => {
                // Interrupted while waiting: the item is never completed (as observed), and
                // the turn's end announces the status.
                return Some(ToolOutcome {
                    output: call.output("aborted: the turn was interrupted"),
                    items: Vec::new(),
                    interrupt: true,
                    follow_up: Vec::new(),
                });
            }
            CommandVerdict::Declined => (CommandExecutionStatus::Declined, DECLINED_OUTPUT, false),
            CommandVerdict::Cancelled => (CommandExecutionStatus::Declined, DECLINED_OUTPUT, true),
            CommandVerdict::Failed => (
                CommandExecutionStatus::Failed,
                APPROVAL_FAILED_OUTPUT,
                false,
            ),
        };
        let details = with_status(&started.details, status);
        let item = self.complete_item(started, details).await;
        self.set_waiting(None).await;
        Some(ToolOutcome {
            output: call.output(output),
            items: vec![item],
            interrupt,
            follow_up: Vec::new(),
        })
    }

    /// Remembers an `acceptForSession`: the identical command runs without asking from now on.
    fn remember_for_session(&self, command: &PreparedCommand) {
        lock(&self.thread.tools.approved_commands).insert(command.argv.clone());
    }

    /// Starts the command and streams its output until it exits or yields.
    async fn run_command(
        &self,
        call: &ToolCall,
        command: &PreparedCommand,
        sandbox: &SandboxPolicy,
        sandboxed: bool,
    ) -> Result<RunOutput, String> {
        // The last word before anything runs: the effective access stays within
        // `clients.max_sandbox` whatever decided to run the command.
        let workspace = PathBuf::from(&lock(&self.thread.state).meta.cwd);
        let effective = if sandboxed {
            sandbox
        } else {
            &SandboxPolicy::DangerFullAccess
        };
        if let Err(error) = self.engine.access.check_sandbox(effective, &workspace) {
            return Err(format!("exec_command failed: {error}"));
        }
        let argv = if sandboxed {
            let concealed = crate::sandbox::Concealment::tandem_home(&self.engine.config().home);
            match crate::sandbox::wrap_command(sandbox, &workspace, &concealed, &command.argv) {
                Ok(argv) => argv,
                Err(error) => return Err(format!("exec_command failed: sandbox: {error}")),
            }
        } else {
            command.argv.clone()
        };
        self.engine.audit(&crate::audit::AuditEvent::CommandRun {
            thread_id: Some(self.thread.id.clone()),
            command: command.display.clone(),
            cwd: command.cwd.display().to_string(),
            sandbox: if sandboxed {
                crate::audit::wire_name(sandbox)
            } else {
                "none".to_string()
            },
        });
        // Bounded: a client that stops reading stalls the command, not the server's memory.
        let (on_output, mut output) = mpsc::channel(16);
        let request = StartRequest {
            argv,
            cwd: command.cwd.clone(),
            environment: command_environment(
                &self.engine.config().shell_environment_policy,
                &[("PAGER", "cat"), ("GIT_PAGER", "cat"), ("NO_COLOR", "1")]
                    .into_iter()
                    .map(|(key, value)| (key.to_string(), Some(value.to_string())))
                    .collect(),
            ),
            tty: command.tty,
            yield_time: command.yield_time,
            max_output_tokens: command.max_output_tokens,
            on_output,
            cancel: self.cancel.child_token(),
        };
        let start = self.thread.tools.unified.start(request);
        tokio::pin!(start);
        let mut aggregated = String::new();
        let result = loop {
            tokio::select! {
                result = &mut start => break result,
                Some(delta) = output.recv() => {
                    append_capped(&mut aggregated, &delta);
                    self.output_delta(call, delta).await;
                }
            }
        };
        while let Ok(delta) = output.try_recv() {
            append_capped(&mut aggregated, &delta);
            self.output_delta(call, delta).await;
        }
        match result {
            Ok(step) => Ok(RunOutput { step, aggregated }),
            Err(error) => Err(format!("exec_command failed: {error}")),
        }
    }

    async fn output_delta(&self, call: &ToolCall, delta: String) {
        self.engine
            .sink
            .emit(ServerNotification::CommandExecutionOutputDelta(
                ItemDeltaNotification {
                    thread_id: self.thread.id.clone(),
                    turn_id: self.turn_id.clone(),
                    item_id: call.call_id.clone(),
                    delta,
                },
            ))
            .await;
    }

    /// Completes the item (or keeps it open while the process runs) and answers the model.
    async fn finish_command(
        &self,
        call: &ToolCall,
        started: &ThreadItem,
        run: Result<RunOutput, String>,
        interrupt: bool,
    ) -> ToolOutcome {
        let RunOutput { step, aggregated } = match run {
            Ok(run) => run,
            Err(message) => {
                let details = with_status(&started.details, CommandExecutionStatus::Failed);
                let item = self.complete_item(started, details).await;
                return ToolOutcome {
                    output: call.output(message),
                    items: vec![item],
                    interrupt,
                    follow_up: Vec::new(),
                };
            }
        };
        let output = call.output(format_exec_result(&step));
        if step.exit_code.is_none() {
            if self.cancel.is_cancelled() {
                return ToolOutcome {
                    output,
                    items: Vec::new(),
                    interrupt: true,
                    follow_up: Vec::new(),
                };
            }
            // Still running: the item completes when a `write_stdin` sees the exit.
            lock(&self.thread.tools.open_commands).insert(
                step.process_id,
                OpenCommand {
                    turn_id: self.turn_id.clone(),
                    item: started.clone(),
                    output: aggregated,
                },
            );
            return ToolOutcome {
                output,
                items: Vec::new(),
                interrupt,
                follow_up: Vec::new(),
            };
        }
        let details = finished_details(
            started,
            &aggregated,
            &step,
            CommandExecutionSource::UnifiedExecStartup,
        );
        let item = self.complete_item(started, details).await;
        ToolOutcome {
            output,
            items: vec![item],
            interrupt,
            follow_up: Vec::new(),
        }
    }
}

/// `workdir` resolved against `base` (absolute paths are kept).
fn resolve_dir(base: &Path, workdir: Option<&str>) -> PathBuf {
    resolve_lexically(base, Path::new(workdir.unwrap_or_default()))
}

/// The `commandExecution` item as started.
fn command_item(call: &ToolCall, command: &PreparedCommand) -> ThreadItemDetails {
    ThreadItemDetails::CommandExecution {
        id: call.call_id.clone(),
        plugin_id: None,
        script_path: None,
        command: command.display.clone(),
        cwd: command.cwd.display().to_string(),
        process_id: None,
        source: CommandExecutionSource::Agent,
        status: CommandExecutionStatus::InProgress,
        command_actions: command_actions(&command.script),
        aggregated_output: None,
        exit_code: None,
        duration_ms: None,
    }
}

/// `details` (a started `commandExecution`) with a final `status` and nothing run.
fn with_status(details: &ThreadItemDetails, status: CommandExecutionStatus) -> ThreadItemDetails {
    let mut details = details.clone();
    if let ThreadItemDetails::CommandExecution {
        status: current, ..
    } = &mut details
    {
        *current = status;
    }
    details
}

/// The completed `commandExecution` for a process that exited.
fn finished_details(
    started: &ThreadItem,
    output: &str,
    step: &ExecStep,
    completed_source: CommandExecutionSource,
) -> ThreadItemDetails {
    let mut details = started.details.clone();
    if let ThreadItemDetails::CommandExecution {
        process_id,
        source,
        status,
        aggregated_output,
        exit_code,
        duration_ms,
        ..
    } = &mut details
    {
        *process_id = Some(step.process_id.to_string());
        *source = completed_source;
        *status = match step.exit_code {
            Some(0) => CommandExecutionStatus::Completed,
            Some(_) => CommandExecutionStatus::Failed,
            None => CommandExecutionStatus::InProgress,
        };
        *aggregated_output = Some(output.to_string());
        *exit_code = step.exit_code;
        let elapsed = crate::clock::unix_millis() - started.started_at_ms.unwrap_or_default();
        *duration_ms = Some(elapsed.max(0));
    }
    details
}

fn append_capped(buffer: &mut String, text: &str) {
    if buffer.len() < AGGREGATED_OUTPUT_CAP {
        buffer.push_str(text);
    }
}

/// What a command does, for clients that summarise it: a `read`, `listFiles` or `search` for
/// simple invocations, else `unknown`.
pub fn command_actions(script: &str) -> Vec<CommandAction> {
    let unknown = || {
        vec![CommandAction::Unknown {
            command: script.to_string(),
        }]
    };
    let Some(words) = shlex::split(script) else {
        return unknown();
    };
    if ['|', ';', '&', '>', '<']
        .iter()
        .any(|c| script.contains(*c))
    {
        return unknown();
    }
    match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["cat", path] => vec![CommandAction::Read {
            command: script.to_string(),
            name: Path::new(path)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.to_string()),
            path: path.to_string(),
        }],
        ["ls", rest @ ..] => vec![CommandAction::ListFiles {
            command: script.to_string(),
            path: rest
                .iter()
                .find(|arg| !arg.starts_with('-'))
                .map(|arg| arg.to_string()),
        }],
        ["rg" | "grep", rest @ ..] => {
            let operands: Vec<&&str> = rest.iter().filter(|arg| !arg.starts_with('-')).collect();
            vec![CommandAction::Search {
                command: script.to_string(),
                query: operands.first().map(|query| query.to_string()),
                path: operands.get(1).map(|path| path.to_string()),
            }]
        }
        _ => unknown(),
    }
}
