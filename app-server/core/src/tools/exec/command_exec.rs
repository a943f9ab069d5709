//! `command/exec` and its companions `command/exec/write`, `resize` and `terminate`
//! (`spec/app-server-protocol.md` §3.12).
//!
//! A command with a client-chosen `processId` is registered while it runs, so that the other
//! requests of the same connection can reach it.
//! Defaults: a 10 s timeout ([`DEFAULT_TIMEOUT`]) unless `disableTimeout`, a 1 MiB cap per
//! output stream ([`DEFAULT_OUTPUT_BYTES_CAP`]) unless `disableOutputCap`, and a 24×80
//! terminal for `tty` without `size`. `tty` implies `streamStdin` and `streamStdoutStderr`.

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use app_server_protocol::notifications::CommandExecOutputDeltaNotification;
use app_server_protocol::utility::{
    CommandExecOutputStream, CommandExecParams, CommandExecResizeParams, CommandExecResponse,
    CommandExecTerminateParams, CommandExecWriteParams,
};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::tools::exec::ExecError;
use crate::tools::exec::environment::{ShellEnvironmentPolicy, command_environment};
use crate::tools::exec::process::{self, OutputStream, ProcessControl, SpawnSpec, TerminalSize};
use crate::tools::exec::run::{self, RunOptions, StreamedChunk};

/// The timeout when the client gives no `timeoutMs` (and does not `disableTimeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// The per-stream output cap when the client gives no `outputBytesCap`.
pub const DEFAULT_OUTPUT_BYTES_CAP: usize = 1024 * 1024;
/// The terminal size for `tty` without `size`.
pub const DEFAULT_TERMINAL_SIZE: TerminalSize = TerminalSize { rows: 24, cols: 80 };

/// How a command ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecOutcome {
    /// The exit code and the buffered output.
    pub response: CommandExecResponse,
    /// Whether buffered stdout reached the output cap.
    pub stdout_cap_reached: bool,
    /// Whether buffered stderr reached the output cap.
    pub stderr_cap_reached: bool,
}

/// The running `command/exec` processes of one connection, by `processId`.
#[derive(Debug, Default)]
pub struct CommandExecRegistry {
    /// `None` while the command with that id is being spawned.
    running: Mutex<HashMap<String, Option<RegisteredProcess>>>,
    /// Cancelled by [`CommandExecRegistry::terminate_all`]: kills every command of the
    /// connection, also those without a `processId` and those still being spawned.
    closing: CancellationToken,
}

#[derive(Clone, Debug)]
struct RegisteredProcess {
    control: ProcessControl,
    stream_stdin: bool,
}

impl CommandExecRegistry {
    /// Runs a `command/exec` to completion.
    ///
    /// `argv` is the final argv (`params.command` wrapped by the sandbox), `cwd` the resolved
    /// working directory, and `policy` builds the environment (the request's `env` applies on
    /// top of it). Streamed output goes to `deltas`; the command waits for
    /// room there, so a receiver that falls behind slows the command down instead of letting
    /// its output pile up in memory.
    pub async fn exec(
        &self,
        params: CommandExecParams,
        argv: Vec<String>,
        cwd: PathBuf,
        policy: &ShellEnvironmentPolicy,
        deltas: mpsc::Sender<CommandExecOutputDeltaNotification>,
    ) -> Result<CommandExecResponse, ExecError> {
        self.exec_reporting_start(params, argv, cwd, policy, deltas, None)
            .await
            .map(|outcome| outcome.response)
    }

    /// [`CommandExecRegistry::exec`], signalling `started` once the process runs and its
    /// `processId` is registered (a failure before that drops `started` unsignalled), and
    /// reporting which streams reached the output cap.
    pub async fn exec_reporting_start(
        &self,
        params: CommandExecParams,
        argv: Vec<String>,
        cwd: PathBuf,
        policy: &ShellEnvironmentPolicy,
        deltas: mpsc::Sender<CommandExecOutputDeltaNotification>,
        started: Option<tokio::sync::oneshot::Sender<()>>,
    ) -> Result<ExecOutcome, ExecError> {
        if params.command.is_empty() || argv.is_empty() {
            return Err(ExecError::EmptyCommand);
        }
        let tty = params.tty == Some(true);
        let stream_stdin = tty || params.stream_stdin == Some(true);
        let stream_output = tty || params.stream_stdout_stderr == Some(true);
        let disable_output_cap = params.disable_output_cap == Some(true);
        let disable_timeout = params.disable_timeout == Some(true);
        if params.output_bytes_cap.is_some() && disable_output_cap {
            return Err(ExecError::ConflictingParams(
                "outputBytesCap and disableOutputCap cannot both be set",
            ));
        }
        if params.timeout_ms.is_some() && disable_timeout {
            return Err(ExecError::ConflictingParams(
                "timeoutMs and disableTimeout cannot both be set",
            ));
        }
        if params.size.is_some() && !tty {
            return Err(ExecError::ConflictingParams("size requires tty"));
        }
        if params.process_id.is_none() && (tty || stream_stdin || stream_output) {
            return Err(ExecError::ProcessIdRequired);
        }
        let reservation = match &params.process_id {
            Some(process_id) => Some(self.reserve(process_id)?),
            None => None,
        };
        // Taken before the spawn, so that a `terminate_all` racing with it still kills the
        // command as soon as it runs.
        let cancel = self.closing.child_token();
        let size = params
            .size
            .map_or(DEFAULT_TERMINAL_SIZE, |size| TerminalSize {
                rows: size.rows,
                cols: size.cols,
            });
        let process = process::spawn(SpawnSpec {
            argv,
            cwd,
            environment: command_environment(policy, &params.env.unwrap_or_default()),
            stdin: stream_stdin,
            tty: tty.then_some(size),
        })?;
        if let Some(reservation) = &reservation {
            reservation.activate(RegisteredProcess {
                control: process.control(),
                stream_stdin,
            });
        }
        if let Some(started) = started {
            let _ = started.send(());
        }
        let timeout = match (disable_timeout, params.timeout_ms) {
            (true, _) => None,
            (false, None) => Some(DEFAULT_TIMEOUT),
            (false, Some(ms)) => Some(Duration::from_millis(u64::try_from(ms).unwrap_or(0))),
        };
        let output_cap = match (disable_output_cap, params.output_bytes_cap) {
            (true, _) => None,
            (false, None) => Some(DEFAULT_OUTPUT_BYTES_CAP),
            (false, Some(cap)) => Some(usize::try_from(cap).unwrap_or(usize::MAX)),
        };
        let (on_chunk, chunks) = match params.process_id {
            Some(process_id) if stream_output => {
                let (sender, chunks) = mpsc::channel::<StreamedChunk>(1);
                (Some(sender), Some((process_id, chunks)))
            }
            _ => (None, None),
        };
        let run = run::run(
            process,
            RunOptions {
                timeout,
                output_cap,
                on_chunk,
                buffer_output: !stream_output,
                // `command/exec/terminate` kills through the registered control; dropping this
                // future kills the group too.
                cancel,
            },
        );
        // The chunk sender is dropped when the run ends, which ends the forwarding after
        // the last chunk.
        let (result, ()) = tokio::join!(run, forward_chunks(chunks, deltas));
        drop(reservation);
        // The run reports one flag for both streams: a buffered stream reached the cap when it
        // holds the cap's worth of bytes.
        let reached =
            |kept: &[u8]| result.cap_reached && output_cap.is_some_and(|cap| kept.len() >= cap);
        Ok(ExecOutcome {
            stdout_cap_reached: reached(&result.stdout),
            stderr_cap_reached: reached(&result.stderr),
            response: CommandExecResponse {
                exit_code: result.exit_code,
                stdout: String::from_utf8_lossy(&result.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&result.stderr).into_owned(),
            },
        })
    }

    /// `command/exec/write`: writes the decoded `deltaBase64` to stdin, then closes stdin if
    /// `closeStdin`.
    pub async fn write(&self, params: CommandExecWriteParams) -> Result<(), ExecError> {
        let registered = self.find(&params.process_id)?;
        if !registered.stream_stdin {
            return Err(ExecError::StdinNotStreamed(params.process_id));
        }
        if let Some(delta) = &params.delta_base64 {
            let bytes = BASE64.decode(delta).map_err(ExecError::InvalidBase64)?;
            if !bytes.is_empty() {
                registered.control.write_stdin(&bytes).await?;
            }
        }
        if params.close_stdin == Some(true) {
            registered.control.close_stdin().await?;
        }
        Ok(())
    }

    /// `command/exec/resize`: changes the terminal size of a `tty` command.
    pub fn resize(&self, params: CommandExecResizeParams) -> Result<(), ExecError> {
        let registered = self.find(&params.process_id)?;
        registered.control.resize(TerminalSize {
            rows: params.size.rows,
            cols: params.size.cols,
        })
    }

    /// `command/exec/terminate`: kills the command's process group; its `command/exec` then
    /// answers with the exit code (137 for `SIGKILL`).
    pub fn terminate(&self, params: CommandExecTerminateParams) -> Result<(), ExecError> {
        self.find(&params.process_id)?.control.kill();
        Ok(())
    }

    /// Kills every command of the connection, registered or not (connection closed,
    /// shutdown); a command started afterwards is killed as soon as it is spawned.
    pub fn terminate_all(&self) {
        self.closing.cancel();
        for registered in self.running().values().flatten() {
            registered.control.kill();
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<RegisteredProcess>>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn find(&self, process_id: &str) -> Result<RegisteredProcess, ExecError> {
        match self.running().get(process_id) {
            Some(Some(registered)) => Ok(registered.clone()),
            Some(None) | None => Err(ExecError::UnknownProcessId(process_id.to_owned())),
        }
    }

    fn reserve(&self, process_id: &str) -> Result<Reservation<'_>, ExecError> {
        let mut running = self.running();
        if running.contains_key(process_id) {
            return Err(ExecError::DuplicateProcessId(process_id.to_owned()));
        }
        running.insert(process_id.to_owned(), None);
        Ok(Reservation {
            registry: self,
            process_id: process_id.to_owned(),
        })
    }
}

/// A `processId` taken by a running `command/exec`; released on drop, also when the request
/// future is dropped mid-way.
struct Reservation<'a> {
    registry: &'a CommandExecRegistry,
    process_id: String,
}

impl Reservation<'_> {
    fn activate(&self, registered: RegisteredProcess) {
        self.registry
            .running()
            .insert(self.process_id.clone(), Some(registered));
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.registry.running().remove(&self.process_id);
    }
}

/// Turns streamed chunks into `command/exec/outputDelta` notifications for `deltas`, waiting
/// for room there.
async fn forward_chunks(
    chunks: Option<(String, mpsc::Receiver<StreamedChunk>)>,
    deltas: mpsc::Sender<CommandExecOutputDeltaNotification>,
) {
    let Some((process_id, mut chunks)) = chunks else {
        return;
    };
    while let Some(StreamedChunk { chunk, cap_reached }) = chunks.recv().await {
        let delta = CommandExecOutputDeltaNotification {
            process_id: process_id.clone(),
            stream: match chunk.stream {
                OutputStream::Stdout => CommandExecOutputStream::Stdout,
                OutputStream::Stderr => CommandExecOutputStream::Stderr,
            },
            delta_base64: BASE64.encode(&chunk.bytes),
            cap_reached,
        };
        if deltas.send(delta).await.is_err() {
            // The receiver is gone: keep draining so that the command is not stalled.
            while chunks.recv().await.is_some() {}
            return;
        }
    }
}
