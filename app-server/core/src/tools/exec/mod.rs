//! Command execution: process groups, streaming output, timeouts and unified-exec sessions.
//!
//! The layers, bottom up:
//! - [`process`] spawns one command in its own process group (optionally on a pseudo-terminal)
//!   and streams its output; dropping the handle kills the whole group.
//! - [`run`] drives a process to completion with a timeout, an output cap and cancellation
//!   (`command/exec`, the `shell` tool).
//! - [`unified`] keeps long-running processes in a session table for the model's
//!   `exec_command` / `write_stdin` tools, and [`format`] renders their result text.
//! - [`command_exec`] is the per-connection registry behind `command/exec` and its
//!   `write` / `resize` / `terminate` companions.
//! - [`shell`] wraps a command line in the user's shell and joins argv for display.
//! - [`environment`] builds every command's environment from the server's by the operator's
//!   `[shell_environment_policy]`: nothing is inherited whole.
//!
//! Nothing here decides *whether* a command may run: the caller passes the final argv, already
//! wrapped by the sandbox.

pub mod command_exec;
pub mod environment;
pub mod format;
pub mod process;
pub mod run;
pub mod shell;
pub mod unified;

#[cfg(test)]
mod test_support;

use std::io;

/// Why a command could not be run, written to, resized or found.
///
/// The messages are shown to clients and to the model as they are.
/// For `command/exec`, [`ExecError::EmptyCommand`], [`ExecError::ProcessIdRequired`] and the
/// other parameter errors are invalid requests (`-32600`); [`ExecError::Spawn`] is an internal
/// error (`-32603`).
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The process could not be started (missing program, bad cwd, no pseudo-terminal…).
    #[error("failed to spawn command: {0}")]
    Spawn(#[source] io::Error),
    /// The argv vector was empty.
    #[error("command must not be empty")]
    EmptyCommand,
    /// The process was started without stdin, or stdin was already closed.
    #[error("stdin is closed")]
    StdinClosed,
    /// Writing to the process's stdin failed (for example because it exited).
    #[error("failed to write to stdin: {0}")]
    StdinWrite(#[source] io::Error),
    /// A resize was requested for a process that has no pseudo-terminal.
    #[error("process has no terminal")]
    NoTerminal,
    /// The terminal size could not be changed.
    #[error("failed to resize terminal: {0}")]
    Resize(#[source] io::Error),
    /// `write_stdin` named a session that does not exist (or already exited).
    #[error("write_stdin failed: unknown session id {0}")]
    UnknownSession(i32),
    /// `write_stdin` sent characters to a session started without a terminal.
    #[error(
        "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"
    )]
    SessionStdinClosed,
    /// No running `command/exec` has this `processId`.
    #[error("no running command with processId {0}")]
    UnknownProcessId(String),
    /// A `command/exec` with this `processId` is still running.
    #[error("processId {0} is already running")]
    DuplicateProcessId(String),
    /// `tty`, `streamStdin` or `streamStdoutStderr` was requested without a `processId`.
    #[error("command/exec tty or streaming requires a client-supplied processId")]
    ProcessIdRequired,
    /// `command/exec/write` targeted a command started without `streamStdin`.
    #[error("processId {0} was not started with streamStdin")]
    StdinNotStreamed(String),
    /// `command/exec/write` carried a `deltaBase64` that is not valid base64.
    #[error("invalid deltaBase64: {0}")]
    InvalidBase64(#[source] base64::DecodeError),
    /// Two mutually exclusive `command/exec` parameters were both set.
    #[error("{0}")]
    ConflictingParams(&'static str),
}
