//! Commands that both front ends run for the app-server's method table: the plan of a
//! `command/exec` or `execOneOffCommand` (empty-command check, cwd, sandbox argv), the
//! unstreamed run of `execOneOffCommand`, `gitDiffToRemote`, and how their failures read.

use std::path::{Path, PathBuf};

use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use app_server_protocol::policy::SandboxPolicy;
use app_server_protocol::utility::{
    CommandExecParams, CommandExecResponse, GitDiffToRemoteParams, GitDiffToRemoteResponse,
};
use tandem_core::audit::AuditEvent;
use tandem_core::engine::Engine;
use tandem_core::sandbox::{Concealment, SandboxError, wrap_command};
use tandem_core::tools::exec::ExecError;
use tandem_core::tools::exec::command_exec::CommandExecRegistry;
use tokio::sync::mpsc;

use crate::rpc_error::{internal_error, invalid_request};
use crate::utility::git_diff::git_diff_to_remote;

/// How many `command/exec/outputDelta` notifications of one command may wait for the writer.
pub const DELTA_QUEUE: usize = 16;

/// `gitDiffToRemote`: the repository containing `cwd` against its remote-tracking commit.
pub async fn git_diff(
    params: GitDiffToRemoteParams,
) -> Result<GitDiffToRemoteResponse, JsonRpcErrorBody> {
    let cwd = resolve_path(Some(&params.cwd));
    match git_diff_to_remote(&cwd).await {
        Ok(response) => Ok(response),
        Err(error) => Err(invalid_request(error.to_string())),
    }
}

/// A `command/exec` that streams nothing (`execOneOffCommand`): run under its sandbox until
/// it exits, registered in `commands` so that closing the connection kills it.
pub async fn run_unstreamed(
    engine: &Engine,
    commands: &CommandExecRegistry,
    params: CommandExecParams,
) -> Result<CommandExecResponse, JsonRpcErrorBody> {
    let (cwd, argv) = exec_plan(engine, &params)?;
    // Nothing is streamed; the receiver is only drained so that the command never waits on it.
    let (deltas, mut received) = mpsc::channel(DELTA_QUEUE);
    let drain = async move { while received.recv().await.is_some() {} };
    let policy = &engine.config().shell_environment_policy;
    let exec = commands.exec(params, argv, cwd, policy, deltas);
    let (result, ()) = tokio::join!(exec, drain);
    result.map_err(|error| exec_error(&error))
}

/// Where a `command/exec` runs and the argv that runs it under its sandbox (the request's
/// `sandboxPolicy`, else the configured sandbox mode), which the engine holds to the
/// operator's `clients.max_sandbox`.
pub fn exec_plan(
    engine: &Engine,
    params: &CommandExecParams,
) -> Result<(PathBuf, Vec<String>), JsonRpcErrorBody> {
    if params.command.is_empty() {
        return Err(exec_error(&ExecError::EmptyCommand));
    }
    let cwd = resolve_path(params.cwd.as_deref());
    let workspace = tandem_core::paths::resolve_lexically(Path::new("/"), &cwd);
    let policy = engine
        .command_sandbox(params.sandbox_policy.as_ref(), &workspace)
        .map_err(crate::compat::legacy_requests::engine_error)?;
    let argv = sandboxed_argv(&policy, &cwd, &engine.config().home, &params.command)?;
    engine.audit(&AuditEvent::CommandRun {
        thread_id: None,
        command: shlex::try_join(params.command.iter().map(String::as_str))
            .unwrap_or_else(|_| params.command.join(" ")),
        cwd: cwd.display().to_string(),
        sandbox: tandem_core::audit::wire_name(&policy),
    });
    Ok((cwd, argv))
}

/// `path` resolved against the server's working directory (which it defaults to).
pub fn resolve_path(path: Option<&str>) -> PathBuf {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    match path {
        Some(path) if !path.is_empty() => base.join(path),
        _ => base,
    }
}

/// The argv that runs `command` under `policy`, unable to read `home` (`TANDEM_HOME`) but for
/// its `skills/` directory, or why
/// it cannot be confined. A kernel that cannot enforce the sandbox is an error: the command
/// must never run unconfined.
pub fn sandboxed_argv(
    policy: &SandboxPolicy,
    cwd: &Path,
    home: &Path,
    command: &[String],
) -> Result<Vec<String>, JsonRpcErrorBody> {
    match wrap_command(policy, cwd, &Concealment::tandem_home(home), command) {
        Ok(argv) => Ok(argv),
        Err(SandboxError::EmptyCommand) => Err(exec_error(&ExecError::EmptyCommand)),
        Err(error) => {
            let message = format!("failed to sandbox command: {error}");
            Err(internal_error(&message))
        }
    }
}

/// The JSON-RPC error for a failed `command/exec` request: the process could not be started
/// or reached is an internal error (`-32603`), anything the client asked wrongly is `-32600`.
pub fn exec_error(error: &ExecError) -> JsonRpcErrorBody {
    let message = error.to_string();
    match error {
        ExecError::Spawn(_) | ExecError::StdinWrite(_) | ExecError::Resize(_) => {
            internal_error(&message)
        }
        ExecError::EmptyCommand
        | ExecError::StdinClosed
        | ExecError::NoTerminal
        | ExecError::UnknownSession(_)
        | ExecError::SessionStdinClosed
        | ExecError::UnknownProcessId(_)
        | ExecError::DuplicateProcessId(_)
        | ExecError::ProcessIdRequired
        | ExecError::StdinNotStreamed(_)
        | ExecError::InvalidBase64(_)
        | ExecError::ConflictingParams(_) => invalid_request(&message),
    }
}
