//! Unified exec: the sessions behind the model's `exec_command` and `write_stdin` tools.
//!
//! `exec_command` starts a process and waits up to a yield time.
//! If the process exited by then, the model gets its exit code and output; otherwise the
//! process stays in a session table and the model gets a session id to poll or feed with
//! `write_stdin`.
//! Output produced between calls is buffered (head and tail, see [`PENDING_OUTPUT_CAP`]) and
//! returned by the next call; it also streams as text to the `on_output` channel given at start.

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::tools::exec::ExecError;
use crate::tools::exec::format::{
    approx_token_count, complete_utf8_len, keep_head_and_tail, new_chunk_id, truncate_middle,
};
use crate::tools::exec::process::{self, OutputChunk, RunningProcess, SpawnSpec, TerminalSize};
use crate::tools::exec::run::OUTPUT_DRAIN_TIMEOUT;

/// `exec_command`'s wait when the model gives no `yield_time_ms`.
pub const DEFAULT_YIELD_TIME: Duration = Duration::from_millis(10_000);
/// The shortest wait of `exec_command` and of a `write_stdin` that writes.
pub const MIN_YIELD_TIME: Duration = Duration::from_millis(250);
/// The longest wait of `exec_command` and of a `write_stdin` that writes.
pub const MAX_YIELD_TIME: Duration = Duration::from_millis(30_000);
/// A `write_stdin` that writes waits this long by default.
pub const DEFAULT_WRITE_YIELD_TIME: Duration = MIN_YIELD_TIME;
/// An empty `write_stdin` (a poll) waits this long by default, which is also its minimum.
pub const DEFAULT_POLL_YIELD_TIME: Duration = Duration::from_millis(5_000);
/// The longest wait of an empty `write_stdin`.
pub const MAX_POLL_YIELD_TIME: Duration = Duration::from_millis(300_000);
/// The output budget when the model gives no `max_output_tokens`.
pub const DEFAULT_MAX_OUTPUT_TOKENS: usize = 10_000;
/// Output buffered between calls: the first and last half of this many bytes are kept.
pub const PENDING_OUTPUT_CAP: usize = 1024 * 1024;

/// The first session id; ids count up from here.
const FIRST_SESSION_ID: i32 = 1000;
/// The size of a session's pseudo-terminal.
const TERMINAL_SIZE: TerminalSize = TerminalSize { rows: 24, cols: 80 };

/// The unified-exec sessions of one thread.
///
/// Dropping it kills every session's process group.
#[derive(Debug)]
pub struct UnifiedExec {
    sessions: Mutex<HashMap<i32, Arc<Session>>>,
    next_session_id: AtomicI32,
}

/// An `exec_command` call.
#[derive(Debug)]
pub struct StartRequest {
    /// The final argv: already wrapped in the shell and the sandbox by the caller.
    pub argv: Vec<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// The whole environment of the command (see [`crate::tools::exec::environment`]).
    pub environment: BTreeMap<OsString, OsString>,
    /// Run on a pseudo-terminal; without one, stdin is `/dev/null` and `write_stdin` can only
    /// poll.
    pub tty: bool,
    /// `yield_time_ms`: defaults to [`DEFAULT_YIELD_TIME`], clamped to
    /// [`MIN_YIELD_TIME`]..=[`MAX_YIELD_TIME`].
    pub yield_time: Option<Duration>,
    /// `max_output_tokens`: defaults to [`DEFAULT_MAX_OUTPUT_TOKENS`].
    pub max_output_tokens: Option<usize>,
    /// Receives all the session's output as text (lossy UTF-8) while it runs, also after this
    /// call returned: the deltas of `item/commandExecution/outputDelta`.
    pub on_output: mpsc::Sender<String>,
    /// Cancelling stops the wait and kills the process: the model never learns its session id.
    pub cancel: CancellationToken,
}

/// A `write_stdin` call.
#[derive(Debug)]
pub struct WriteRequest {
    /// The session id `exec_command` returned.
    pub session_id: i32,
    /// Text to send; empty only polls.
    pub chars: String,
    /// `yield_time_ms`: after a write defaults to [`DEFAULT_WRITE_YIELD_TIME`] and is clamped
    /// to [`MIN_YIELD_TIME`]..=[`MAX_YIELD_TIME`]; a poll defaults to
    /// [`DEFAULT_POLL_YIELD_TIME`] and is clamped to that..=[`MAX_POLL_YIELD_TIME`].
    pub yield_time: Option<Duration>,
    /// `max_output_tokens`: defaults to [`DEFAULT_MAX_OUTPUT_TOKENS`].
    pub max_output_tokens: Option<usize>,
    /// Cancelling stops the wait early; the session keeps running (see
    /// [`UnifiedExec::terminate_all`]).
    pub cancel: CancellationToken,
}

/// What one `exec_command` or `write_stdin` call saw; [`crate::tools::exec::format`] renders it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecStep {
    /// Six hex digits identifying this chunk of output.
    pub chunk_id: String,
    /// The unified-exec process id, the same number as the session id; the app-server shows it
    /// as `commandExecution.processId`.
    pub process_id: i32,
    /// Set while the process runs: the id to pass to `write_stdin`.
    pub session_id: Option<i32>,
    /// Set once the process exited.
    pub exit_code: Option<i32>,
    /// The output since the previous call, cut to `max_output_tokens`.
    pub output: String,
    /// How long the call took.
    pub wall_time: Duration,
    /// Estimated tokens of the whole output before truncation.
    pub original_token_count: usize,
}

#[derive(Debug)]
struct Session {
    id: i32,
    process: RunningProcess,
    pending: Arc<Mutex<PendingOutput>>,
    /// Becomes `true` once the output channel ended.
    output_ended: watch::Receiver<bool>,
    /// One call at a time waits on a session, so output goes to exactly one of them.
    step: tokio::sync::Mutex<()>,
    pump: JoinHandle<()>,
}

/// Output not yet returned to the model: the first and the last bytes, up to a cap.
#[derive(Debug, Default)]
struct PendingOutput {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    /// Every byte pushed since the last take, including those dropped from the middle.
    total: usize,
}

impl UnifiedExec {
    /// An empty session table.
    pub fn new() -> Self {
        Self {
            sessions: Mutex::new(HashMap::new()),
            next_session_id: AtomicI32::new(FIRST_SESSION_ID),
        }
    }

    /// Starts a process and waits until it exits or the yield time passes.
    pub async fn start(&self, request: StartRequest) -> Result<ExecStep, ExecError> {
        let started = Instant::now();
        let yield_time = request
            .yield_time
            .unwrap_or(DEFAULT_YIELD_TIME)
            .clamp(MIN_YIELD_TIME, MAX_YIELD_TIME);
        let max_output_tokens = request
            .max_output_tokens
            .unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS);
        let process = process::spawn(SpawnSpec {
            argv: request.argv,
            cwd: request.cwd,
            environment: request.environment,
            stdin: false,
            tty: request.tty.then_some(TERMINAL_SIZE),
        })?;
        let session_id = self.next_session_id.fetch_add(1, Ordering::Relaxed);
        let session = Arc::new(Session::new(session_id, process, request.on_output));
        self.sessions().insert(session_id, Arc::clone(&session));
        // If this call is dropped before it returns, nobody learns the session id: end it.
        let mut orphan_guard = OrphanGuard {
            unified: self,
            session_id,
            armed: true,
        };
        let wait = Wait {
            deadline: started + yield_time,
            cancel: &request.cancel,
            kill_on_cancel: true,
        };
        let step = self
            .collect(&session, started, wait, max_output_tokens)
            .await;
        orphan_guard.armed = false;
        Ok(step)
    }

    /// Writes to a session (or just polls it) and waits until it exits or the yield time
    /// passes.
    pub async fn write_stdin(&self, request: WriteRequest) -> Result<ExecStep, ExecError> {
        let started = Instant::now();
        let Some(session) = self.sessions().get(&request.session_id).cloned() else {
            return Err(ExecError::UnknownSession(request.session_id));
        };
        let yield_time = if request.chars.is_empty() {
            request
                .yield_time
                .unwrap_or(DEFAULT_POLL_YIELD_TIME)
                .clamp(DEFAULT_POLL_YIELD_TIME, MAX_POLL_YIELD_TIME)
        } else {
            request
                .yield_time
                .unwrap_or(DEFAULT_WRITE_YIELD_TIME)
                .clamp(MIN_YIELD_TIME, MAX_YIELD_TIME)
        };
        let deadline = started + yield_time;
        if !request.chars.is_empty() {
            if !session.process.has_terminal() {
                return Err(ExecError::SessionStdinClosed);
            }
            // A process that does not read its input can block the write: give up at the
            // deadline and report the output so far. A failed write usually means the
            // process exited, which the step below reports.
            let write = session.process.write_stdin(request.chars.as_bytes());
            match tokio::time::timeout_at(deadline, write).await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => tracing::debug!(%error, "write_stdin failed"),
                Err(_elapsed) => tracing::debug!("write_stdin timed out"),
            }
        }
        let max_output_tokens = request
            .max_output_tokens
            .unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS);
        let wait = Wait {
            deadline,
            cancel: &request.cancel,
            kill_on_cancel: false,
        };
        Ok(self
            .collect(&session, started, wait, max_output_tokens)
            .await)
    }

    /// Kills every session's process group and forgets the sessions (turn interrupt,
    /// shutdown). Calls waiting on them return with the exit.
    pub fn terminate_all(&self) {
        let sessions: Vec<Arc<Session>> = self.sessions().drain().map(|(_, s)| s).collect();
        for session in &sessions {
            session.process.kill();
        }
    }

    /// Ids of the sessions still running.
    #[cfg(test)]
    pub fn session_ids(&self) -> Vec<i32> {
        let mut ids: Vec<i32> = self.sessions().keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<i32, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn remove(&self, session_id: i32) -> Option<Arc<Session>> {
        self.sessions().remove(&session_id)
    }

    /// Waits for the exit or the deadline, then returns the pending output.
    async fn collect(
        &self,
        session: &Session,
        started: Instant,
        wait: Wait<'_>,
        max_output_tokens: usize,
    ) -> ExecStep {
        let _step = session.step.lock().await;
        let exit = tokio::select! {
            outcome = session.process.wait() => Some(outcome),
            () = tokio::time::sleep_until(wait.deadline) => None,
            () = wait.cancel.cancelled() => {
                if wait.kill_on_cancel {
                    session.process.kill();
                    Some(session.process.wait().await)
                } else {
                    None
                }
            }
        };
        if exit.is_some() {
            // Output written just before the exit may still be on its way from the readers.
            let mut output_ended = session.output_ended.clone();
            let drain = output_ended.wait_for(|ended| *ended);
            let _ = tokio::time::timeout(OUTPUT_DRAIN_TIMEOUT, drain).await;
            // Dropping the last reference kills what is left of the process group.
            drop(self.remove(session.id));
        }
        let exited = exit.is_some();
        let taken = session.pending().take(exited);
        let original_token_count = approx_token_count(taken.total);
        let output = if taken.head.len() + taken.tail.len() == taken.total {
            let mut bytes = taken.head;
            bytes.extend_from_slice(&taken.tail);
            truncate_middle(&String::from_utf8_lossy(&bytes), max_output_tokens).0
        } else {
            let head = String::from_utf8_lossy(&taken.head);
            let tail = String::from_utf8_lossy(&taken.tail);
            keep_head_and_tail(&head, &tail, taken.total, max_output_tokens)
        };
        ExecStep {
            chunk_id: new_chunk_id(),
            process_id: session.id,
            session_id: (!exited).then_some(session.id),
            exit_code: exit.map(|outcome| outcome.exit_code),
            output,
            wall_time: started.elapsed(),
            original_token_count,
        }
    }
}

impl Default for UnifiedExec {
    fn default() -> Self {
        Self::new()
    }
}

struct Wait<'a> {
    deadline: Instant,
    cancel: &'a CancellationToken,
    kill_on_cancel: bool,
}

/// Removes (and so kills) a session whose `start` call was dropped before it returned.
struct OrphanGuard<'a> {
    unified: &'a UnifiedExec,
    session_id: i32,
    armed: bool,
}

impl Drop for OrphanGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            drop(self.unified.remove(self.session_id));
        }
    }
}

impl Session {
    fn new(id: i32, mut process: RunningProcess, on_output: mpsc::Sender<String>) -> Self {
        let pending = Arc::new(Mutex::new(PendingOutput::default()));
        let (ended_sender, output_ended) = watch::channel(false);
        let pump = match process.take_output() {
            Some(output) => tokio::spawn(pump_output(
                output,
                Arc::clone(&pending),
                on_output,
                ended_sender,
            )),
            None => {
                ended_sender.send_replace(true);
                tokio::spawn(async {})
            }
        };
        Self {
            id,
            process,
            pending,
            output_ended,
            step: tokio::sync::Mutex::new(()),
            pump,
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, PendingOutput> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // The process's own drop kills the group; a reader kept alive by an escaped
        // grandchild holding the pipe should not outlive the session either.
        self.pump.abort();
    }
}

/// Moves output from the process into the pending buffer and out as text deltas.
async fn pump_output(
    mut output: mpsc::Receiver<OutputChunk>,
    pending: Arc<Mutex<PendingOutput>>,
    on_output: mpsc::Sender<String>,
    ended: watch::Sender<bool>,
) {
    let mut undecoded = Vec::new();
    while let Some(chunk) = output.recv().await {
        pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(&chunk.bytes);
        undecoded.extend_from_slice(&chunk.bytes);
        let complete = complete_utf8_len(&undecoded);
        let rest = undecoded.split_off(complete);
        if !undecoded.is_empty() {
            // Waiting for room passes a slow client's backpressure on to the command. The
            // receiver may be gone (the item completed); the session runs on regardless.
            let _ = on_output
                .send(String::from_utf8_lossy(&undecoded).into_owned())
                .await;
        }
        undecoded = rest;
    }
    if !undecoded.is_empty() {
        let _ = on_output
            .send(String::from_utf8_lossy(&undecoded).into_owned())
            .await;
    }
    ended.send_replace(true);
}

/// Output taken from a [`PendingOutput`].
struct TakenOutput {
    head: Vec<u8>,
    /// Empty unless bytes were dropped between `head` and `tail`.
    tail: Vec<u8>,
    total: usize,
}

impl PendingOutput {
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len();
        let half = PENDING_OUTPUT_CAP / 2;
        let into_head = half.saturating_sub(self.head.len()).min(bytes.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        self.tail.extend(&bytes[into_head..]);
        if self.tail.len() > half {
            let excess = self.tail.len() - half;
            self.tail.drain(..excess);
        }
    }

    /// Takes everything; unless `exited`, an incomplete character at the end stays behind for
    /// the next take.
    fn take(&mut self, exited: bool) -> TakenOutput {
        let total = std::mem::take(&mut self.total);
        let mut head = std::mem::take(&mut self.head);
        let mut tail: Vec<u8> = self.tail.drain(..).collect();
        if head.len() + tail.len() == total {
            head.append(&mut tail);
        }
        let mut taken = TakenOutput { head, tail, total };
        if !exited {
            let last = if taken.tail.is_empty() {
                &mut taken.head
            } else {
                &mut taken.tail
            };
            let incomplete = last.split_off(complete_utf8_len(last));
            taken.total -= incomplete.len();
            self.push(&incomplete);
        }
        taken
    }
}
