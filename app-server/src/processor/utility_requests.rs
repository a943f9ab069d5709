//! The utility requests of a connection: `command/exec` with its `write`, `resize` and
//! `terminate` companions, `fuzzyFileSearch` and `gitDiffToRemote`
//! (`spec/app-server-protocol.md` §3.12–§3.14).
//!
//! They run without a thread or a turn, so they bypass the engine: the processor calls the
//! libraries in `tools::exec` and `utility` directly. Running commands belong to the
//! connection and die with it ([`Processor::close_utilities`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::notifications::CommandExecOutputDeltaNotification;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_requests::EmptyResponse;
use app_server_protocol::utility::{
    CommandExecParams, CommandExecResizeParams, CommandExecResponse, CommandExecTerminateParams,
    CommandExecWriteParams, FuzzyFileSearchParams, FuzzyFileSearchResponse,
};
use serde::Serialize;
use tokio::sync::mpsc;

use crate::compat::commands::{DELTA_QUEUE, exec_error, exec_plan};
use crate::outgoing::OutgoingSender;
use crate::processor::Processor;
use crate::rpc_error::{internal_error, invalid_request};
use crate::utility::fuzzy_search::fuzzy_file_search;
use tandem_core::tools::exec::command_exec::CommandExecRegistry;

/// How many matches `fuzzyFileSearch` returns at most, as the reference server does.
pub const FUZZY_SEARCH_LIMIT: usize = 50;

/// The per-connection state of the utility requests.
#[derive(Debug, Default)]
pub struct Utilities {
    /// The running `command/exec` processes.
    commands: CommandExecRegistry,
    /// The running `fuzzyFileSearch`es that have a `cancellationToken`.
    searches: FuzzySearches,
    /// The connection's `fs/watch`es.
    pub(super) watches: Arc<crate::utility::fs_watch::FsWatches>,
    /// The running `process/spawn` processes, by handle.
    pub(super) processes: Arc<CommandExecRegistry>,
    /// The connection's fuzzy-file-search sessions.
    pub(super) fuzzy_sessions: crate::processor::fuzzy_sessions::FuzzySessions,
    /// The skill directories watched for `skills/changed`.
    pub(super) skills_watch: Arc<crate::utility::skills_watch::SkillsWatch>,
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
    /// process outlives the connection, and stops its file watches.
    pub fn close_utilities(&self) {
        self.utilities.commands.terminate_all();
        self.utilities.processes.terminate_all();
        self.utilities.watches.close();
        self.utilities.skills_watch.close();
        self.utilities.fuzzy_sessions.close();
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
        let policy = &self.engine.config().shell_environment_policy;
        let exec = self
            .utilities
            .commands
            .exec(params, argv, cwd, policy, deltas);
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

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use tandem_core::tools::exec::ExecError;

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
