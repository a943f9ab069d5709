//! `thread/shellCommand`: a command the user runs in a thread, as a turn of its own with one
//! `commandExecution` item (`source: "userShell"`) and its output deltas.
//!
//! Unlike the reference, which runs it with full access, the command runs under the thread's
//! sandbox, checked against the operator's `clients.max_sandbox` just before it starts (as a
//! model's command is), unable to read `$TANDEM_HOME`, with the environment
//! `[shell_environment_policy]` builds. Its output (cut to 1 MiB) is added to the model's
//! history, so that the next turn knows what the user ran and saw.

use std::path::PathBuf;
use std::time::Duration;

use app_server_protocol::item::{
    CommandAction, CommandExecutionSource, CommandExecutionStatus, ThreadItem, ThreadItemDetails,
};
use app_server_protocol::notifications::ItemDeltaNotification;
use app_server_protocol::shell_command::ThreadShellCommandParams;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::turn_requests::TurnStartParams;
use tokio::sync::mpsc;

use crate::engine::settings::normalize_thread_id;
use crate::engine::turn::TurnTask;
use crate::engine::turn_control::TurnLauncher;
use crate::engine::{Engine, EngineError};
use crate::model::{ContentItem, ResponseItem};
use crate::sync::lock;
use crate::tools::exec::environment::command_environment;
use crate::tools::exec::process::{self, SpawnSpec};
use crate::tools::exec::run::{self, RunOptions, StreamedChunk};
use crate::tools::exec::shell::{join_command, shell_argv};

/// How long a command may run when the request names no timeout (the reference's hour).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60 * 60);
/// Most of each output stream kept for the item and the model's history.
const OUTPUT_CAP: usize = 1024 * 1024;
/// The longest command line accepted, in bytes.
const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// A user's command waiting for its turn to run it.
#[derive(Debug, Clone)]
pub struct UserShellCommand {
    /// The command line.
    pub command: String,
    /// When to kill it.
    pub timeout: Duration,
}

impl Engine {
    /// `thread/shellCommand`: prepares a turn that runs the command. Refused while a turn
    /// runs, for an empty or over-long command and for a negative timeout.
    pub fn start_shell_command(
        &self,
        params: ThreadShellCommandParams,
    ) -> Result<TurnLauncher, EngineError> {
        if params.command.trim().is_empty() {
            return Err(EngineError::InvalidRequest(
                "command must not be empty".into(),
            ));
        }
        if params.command.len() > MAX_COMMAND_BYTES {
            return Err(EngineError::InvalidRequest(format!(
                "command is too long: {} bytes, at most {MAX_COMMAND_BYTES}",
                params.command.len()
            )));
        }
        let timeout = match params.timeout_ms {
            None => DEFAULT_TIMEOUT,
            Some(ms) => match u64::try_from(ms) {
                Ok(ms) => Duration::from_millis(ms),
                Err(_) => {
                    return Err(EngineError::InvalidRequest(
                        "timeoutMs must not be negative".into(),
                    ));
                }
            },
        };
        let id = normalize_thread_id(&params.thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        if lock(&thread.state).active.is_some() {
            return Err(EngineError::InvalidRequest(
                "cannot run a shell command while a turn is in progress".into(),
            ));
        }
        let (_, launcher) = self.start_turn(TurnStartParams {
            thread_id: id,
            ..TurnStartParams::default()
        })?;
        let Some(mut launcher) = launcher else {
            return Err(EngineError::InvalidRequest(
                "cannot run a shell command while a turn is in progress".into(),
            ));
        };
        launcher.task.shell_command = Some(UserShellCommand {
            command: params.command,
            timeout,
        });
        Ok(launcher)
    }
}

impl TurnTask {
    /// Runs the user's command as the turn's one item; returns it and whether the turn was
    /// interrupted.
    pub(super) async fn run_user_shell(&self, shell: UserShellCommand) -> (ThreadItem, bool) {
        let (cwd, sandbox) = {
            let state = lock(&self.thread.state);
            (PathBuf::from(&state.meta.cwd), state.meta.sandbox.clone())
        };
        let argv = shell_argv(&shell.command, None, true);
        let details = |status, aggregated_output, exit_code, duration_ms| {
            ThreadItemDetails::CommandExecution {
                id: item_id(&self.turn_id),
                plugin_id: None,
                script_path: None,
                command: join_command(&argv),
                cwd: cwd.display().to_string(),
                process_id: None,
                source: CommandExecutionSource::UserShell,
                status,
                command_actions: vec![CommandAction::Unknown {
                    command: shell.command.clone(),
                }],
                aggregated_output,
                exit_code,
                duration_ms,
            }
        };
        let started = self
            .start_item(details(
                CommandExecutionStatus::InProgress,
                None,
                None,
                None,
            ))
            .await;
        let refuse = |message: String| {
            details(
                CommandExecutionStatus::Failed,
                Some(message),
                Some(-1),
                Some(0),
            )
        };
        // The last word before anything runs, as for the model's commands.
        if let Err(error) = self.engine.access.check_sandbox(&sandbox, &cwd) {
            let item = self
                .complete_item(&started, refuse(error.to_string()))
                .await;
            return (item, false);
        }
        let concealed = crate::sandbox::Concealment::tandem_home(&self.engine.config().home);
        let wrapped = match crate::sandbox::wrap_command(&sandbox, &cwd, &concealed, &argv) {
            Ok(wrapped) => wrapped,
            Err(error) => {
                let message = format!("failed to sandbox command: {error}");
                let item = self.complete_item(&started, refuse(message)).await;
                return (item, false);
            }
        };
        self.engine.audit(&crate::audit::AuditEvent::CommandRun {
            thread_id: Some(self.thread.id.clone()),
            command: join_command(&argv),
            cwd: cwd.display().to_string(),
            sandbox: crate::audit::wire_name(&sandbox),
        });
        let environment = command_environment(
            &self.engine.config().shell_environment_policy,
            &[("PAGER", "cat"), ("GIT_PAGER", "cat")]
                .into_iter()
                .map(|(key, value)| (key.to_string(), Some(value.to_string())))
                .collect(),
        );
        let process = match process::spawn(SpawnSpec {
            argv: wrapped,
            cwd: cwd.clone(),
            environment,
            stdin: false,
            tty: None,
        }) {
            Ok(process) => process,
            Err(error) => {
                let item = self
                    .complete_item(&started, refuse(error.to_string()))
                    .await;
                return (item, false);
            }
        };
        // Bounded: a client that stops reading stalls the command, not the server's memory.
        let (on_chunk, mut chunks) = mpsc::channel::<StreamedChunk>(16);
        let run = run::run(
            process,
            RunOptions {
                timeout: Some(shell.timeout),
                output_cap: Some(OUTPUT_CAP),
                on_chunk: Some(on_chunk),
                buffer_output: true,
                cancel: self.cancel.child_token(),
            },
        );
        let item_id = item_id(&self.turn_id);
        let forward = async {
            while let Some(streamed) = chunks.recv().await {
                let delta = String::from_utf8_lossy(&streamed.chunk.bytes).into_owned();
                self.engine
                    .sink
                    .emit(ServerNotification::CommandExecutionOutputDelta(
                        ItemDeltaNotification {
                            thread_id: self.thread.id.clone(),
                            turn_id: self.turn_id.clone(),
                            item_id: item_id.clone(),
                            delta,
                        },
                    ))
                    .await;
            }
        };
        let (result, ()) = tokio::join!(run, forward);
        let mut output = String::from_utf8_lossy(&result.aggregated).into_owned();
        if result.cap_reached {
            output.push_str(&format!(
                "\n[output cut: each stream keeps at most {OUTPUT_CAP} bytes]"
            ));
        }
        if result.timed_out {
            output.push_str(&format!(
                "\n[command timed out after {} ms]",
                shell.timeout.as_millis()
            ));
        }
        let status = if result.exit_code == 0 && !result.timed_out && !result.cancelled {
            CommandExecutionStatus::Completed
        } else {
            CommandExecutionStatus::Failed
        };
        let duration_ms = i64::try_from(result.duration.as_millis()).unwrap_or(i64::MAX);
        self.record_history(ResponseItem::Message {
            id: None,
            role: "user".into(),
            content: vec![ContentItem::InputText {
                text: format!(
                    "<user_shell_command>\n<command>\n{}\n</command>\n<result>\nExit code: {}\nDuration: {} ms\nOutput:\n{}\n</result>\n</user_shell_command>",
                    shell.command, result.exit_code, duration_ms, output
                ),
            }],
        });
        let item = self
            .complete_item(
                &started,
                details(
                    status,
                    Some(output),
                    Some(result.exit_code),
                    Some(duration_ms),
                ),
            )
            .await;
        (item, result.cancelled)
    }
}

/// The id of the turn's command item: the turn's own id, which is unique and lets a client
/// find the command of a turn.
fn item_id(turn_id: &str) -> String {
    format!("shell-{turn_id}")
}
