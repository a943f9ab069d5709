//! The utility requests of a connection: `command/exec` with its `write`, `resize` and
//! `terminate` companions, `fuzzyFileSearch` and `gitDiffToRemote`
//! (`spec/app-server-protocol.md` §3.12–§3.14).
//!
//! They run without a thread or a turn, so they bypass the engine: the processor calls the
//! libraries in `tools::exec` and `utility` directly. Running commands belong to the
//! connection and die with it ([`Processor::close_utilities`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::notifications::CommandExecOutputDeltaNotification;
use app_server_protocol::policy::SandboxPolicy;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_requests::EmptyResponse;
use app_server_protocol::utility::{
    CommandExecParams, CommandExecResizeParams, CommandExecResponse, CommandExecTerminateParams,
    CommandExecWriteParams, FuzzyFileSearchParams, FuzzyFileSearchResponse, GitDiffToRemoteParams,
    GitDiffToRemoteResponse,
};
use serde::Serialize;
use tokio::sync::mpsc;

use crate::engine::{Engine, sandbox_policy};
use crate::outgoing::OutgoingSender;
use crate::processor::Processor;
use crate::rpc_error::{internal_error, invalid_request};
use crate::sandbox::{SandboxError, wrap_command};
use crate::tools::exec::ExecError;
use crate::tools::exec::command_exec::CommandExecRegistry;
use crate::utility::fuzzy_search::fuzzy_file_search;
use crate::utility::git_diff::git_diff_to_remote;

/// How many matches `fuzzyFileSearch` returns at most, as the reference server does.
pub const FUZZY_SEARCH_LIMIT: usize = 50;

/// How many `command/exec/outputDelta` notifications of one command may wait for the writer.
const DELTA_QUEUE: usize = 16;

/// The per-connection state of the utility requests.
#[derive(Debug, Default)]
pub struct Utilities {
    /// The running `command/exec` processes.
    commands: CommandExecRegistry,
    /// The running `fuzzyFileSearch`es that have a `cancellationToken`.
    searches: FuzzySearches,
}

/// The cancellation flag of the running `fuzzyFileSearch` for each `cancellationToken`.
#[derive(Debug, Default)]
struct FuzzySearches {
    running: Mutex<HashMap<String, Arc<AtomicBool>>>,
}

/// One running search; leaves [`FuzzySearches`] on drop unless a later search took its token.
struct FuzzySearch<'a> {
    searches: &'a FuzzySearches,
    token: Option<String>,
    cancelled: Arc<AtomicBool>,
}

impl Utilities {
    /// No running commands or searches.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Processor {
    /// Kills every `command/exec` of this connection (and any started later), so that no child
    /// process outlives the connection.
    pub fn close_utilities(&self) {
        self.utilities.commands.terminate_all();
        self.conversation_api.close();
    }

    /// Sends `result` as the response to `id`.
    pub(super) async fn reply<T: Serialize>(
        &self,
        id: RequestId,
        result: Result<T, JsonRpcErrorBody>,
    ) {
        match result {
            Ok(response) => self.outgoing.send_response(id, &response).await,
            Err(error) => self.outgoing.send_error(id, error).await,
        }
    }

    /// `command/exec`: runs the command under its sandbox until it exits, forwarding streamed
    /// output as `command/exec/outputDelta` notifications before the response.
    pub(super) async fn command_exec(
        &self,
        params: CommandExecParams,
    ) -> Result<CommandExecResponse, JsonRpcErrorBody> {
        let (cwd, argv) = exec_plan(&self.engine, &params)?;
        // Bounded: a client that stops reading stalls the command, not the server's memory.
        let (deltas, received) = mpsc::channel(DELTA_QUEUE);
        let exec = self.utilities.commands.exec(params, argv, cwd, deltas);
        // The sender is dropped when `exec` finishes, which ends the forwarding after the
        // last delta: every delta precedes the response.
        let (result, ()) = tokio::join!(exec, forward_deltas(&self.outgoing, received));
        match result {
            Ok(response) => Ok(response),
            Err(error) => Err(exec_error(&error)),
        }
    }

    /// `command/exec/write`: writes to (and optionally closes) a running command's stdin.
    pub(super) async fn command_exec_write(
        &self,
        params: CommandExecWriteParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        match self.utilities.commands.write(params).await {
            Ok(()) => Ok(EmptyResponse {}),
            Err(error) => Err(exec_error(&error)),
        }
    }

    /// `command/exec/resize`: resizes a running `tty` command's terminal.
    pub(super) fn command_exec_resize(
        &self,
        params: CommandExecResizeParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        match self.utilities.commands.resize(params) {
            Ok(()) => Ok(EmptyResponse {}),
            Err(error) => Err(exec_error(&error)),
        }
    }

    /// `command/exec/terminate`: kills a running command's process group; its `command/exec`
    /// then answers with exit code 137.
    pub(super) fn command_exec_terminate(
        &self,
        params: CommandExecTerminateParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        match self.utilities.commands.terminate(params) {
            Ok(()) => Ok(EmptyResponse {}),
            Err(error) => Err(exec_error(&error)),
        }
    }

    /// `fuzzyFileSearch`: the best matches under `roots`; a later search with the same
    /// `cancellationToken` cancels this one, which then answers with no files.
    pub(super) async fn fuzzy_file_search(
        &self,
        params: FuzzyFileSearchParams,
    ) -> Result<FuzzyFileSearchResponse, JsonRpcErrorBody> {
        for root in &params.roots {
            let path = Path::new(root);
            if !path.is_absolute() {
                let message = format!("fuzzyFileSearch root must be an absolute path: {root:?}");
                return Err(invalid_request(&message));
            }
            // A missing root gives no matches, as on the reference server; a file is a mistake.
            if path.exists() && !path.is_dir() {
                let message = format!("fuzzyFileSearch root is not a directory: {root:?}");
                return Err(invalid_request(&message));
            }
        }
        let FuzzyFileSearchParams {
            query,
            roots,
            cancellation_token,
        } = params;
        let search = self.utilities.searches.begin(cancellation_token);
        let cancelled = Arc::clone(&search.cancelled);
        // The walk is blocking file-system work on its own threads.
        let files = tokio::task::spawn_blocking(move || {
            fuzzy_file_search(&query, &roots, FUZZY_SEARCH_LIMIT, &cancelled)
        })
        .await;
        drop(search);
        match files {
            Ok(files) => Ok(FuzzyFileSearchResponse { files }),
            Err(error) => Err(internal_error(format!("fuzzy file search failed: {error}"))),
        }
    }
}

/// `gitDiffToRemote`: the repository containing `cwd` against its remote-tracking commit.
pub(super) async fn git_diff(
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
pub(super) async fn run_unstreamed(
    engine: &Engine,
    commands: &CommandExecRegistry,
    params: CommandExecParams,
) -> Result<CommandExecResponse, JsonRpcErrorBody> {
    let (cwd, argv) = exec_plan(engine, &params)?;
    // Nothing is streamed; the receiver is only drained so that the command never waits on it.
    let (deltas, mut received) = mpsc::channel(DELTA_QUEUE);
    let drain = async move { while received.recv().await.is_some() {} };
    let (result, ()) = tokio::join!(commands.exec(params, argv, cwd, deltas), drain);
    result.map_err(|error| exec_error(&error))
}

impl FuzzySearches {
    /// Registers a search under `token`, cancelling the running search with the same token.
    fn begin(&self, token: Option<String>) -> FuzzySearch<'_> {
        let cancelled = Arc::new(AtomicBool::new(false));
        if let Some(token) = &token
            && let Some(previous) = self.running().insert(token.clone(), Arc::clone(&cancelled))
        {
            previous.store(true, Ordering::Relaxed);
        }
        FuzzySearch {
            searches: self,
            token,
            cancelled,
        }
    }

    fn running(&self) -> MutexGuard<'_, HashMap<String, Arc<AtomicBool>>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for FuzzySearch<'_> {
    fn drop(&mut self) {
        let Some(token) = &self.token else {
            return;
        };
        let mut running = self.searches.running();
        if running
            .get(token)
            .is_some_and(|current| Arc::ptr_eq(current, &self.cancelled))
        {
            running.remove(token);
        }
    }
}

/// Sends each delta as a `command/exec/outputDelta` notification until the channel closes.
async fn forward_deltas(
    outgoing: &OutgoingSender,
    mut received: mpsc::Receiver<CommandExecOutputDeltaNotification>,
) {
    while let Some(delta) = received.recv().await {
        outgoing
            .send_notification(&ServerNotification::CommandExecOutputDelta(delta))
            .await;
    }
}

/// `path` resolved against the server's working directory (which it defaults to).
/// Where a `command/exec` runs and the argv that runs it under its sandbox (the request's
/// `sandboxPolicy`, else the configured sandbox mode).
fn exec_plan(
    engine: &Engine,
    params: &CommandExecParams,
) -> Result<(PathBuf, Vec<String>), JsonRpcErrorBody> {
    if params.command.is_empty() {
        return Err(exec_error(&ExecError::EmptyCommand));
    }
    let cwd = resolve_path(params.cwd.as_deref());
    let policy = match &params.sandbox_policy {
        Some(policy) => policy.clone(),
        None => {
            let config = engine.config();
            sandbox_policy(config.sandbox_mode, config)
        }
    };
    let argv = sandboxed_argv(&policy, &cwd, &params.command)?;
    Ok((cwd, argv))
}

fn resolve_path(path: Option<&str>) -> PathBuf {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    match path {
        Some(path) if !path.is_empty() => base.join(path),
        _ => base,
    }
}

/// The argv that runs `command` under `policy`, or why it cannot be confined. A kernel that
/// cannot enforce the sandbox is an error: the command must never run unconfined.
fn sandboxed_argv(
    policy: &SandboxPolicy,
    cwd: &Path,
    command: &[String],
) -> Result<Vec<String>, JsonRpcErrorBody> {
    match wrap_command(policy, cwd, command) {
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
fn exec_error(error: &ExecError) -> JsonRpcErrorBody {
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

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn a_later_search_with_the_same_token_cancels_the_earlier_one() {
        let searches = FuzzySearches::default();
        let first = searches.begin(Some("t".to_string()));
        let untokened = searches.begin(None);
        let other = searches.begin(Some("u".to_string()));
        assert!(!first.cancelled.load(Ordering::Relaxed));

        let second = searches.begin(Some("t".to_string()));
        assert!(first.cancelled.load(Ordering::Relaxed));
        assert!(!second.cancelled.load(Ordering::Relaxed));
        assert!(!untokened.cancelled.load(Ordering::Relaxed));
        assert!(!other.cancelled.load(Ordering::Relaxed));

        // The cancelled search ending does not unregister its successor.
        drop(first);
        let current = searches.running().get("t").map(Arc::clone).unwrap();
        assert!(Arc::ptr_eq(&current, &second.cancelled));
        let third = searches.begin(Some("t".to_string()));
        assert!(second.cancelled.load(Ordering::Relaxed));
        drop(second);
        drop(third);
        drop(other);
        drop(untokened);
        assert_eq!(searches.running().len(), 0);
    }

    #[test]
    fn command_exec_errors_are_invalid_requests_unless_the_process_failed() {
        let spawn = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(exec_error(&ExecError::Spawn(spawn)).code, -32603);
        assert_eq!(exec_error(&ExecError::EmptyCommand).code, -32600);
        assert_eq!(
            exec_error(&ExecError::UnknownProcessId("p".to_string())).message,
            "no running command with processId p"
        );
    }
}
