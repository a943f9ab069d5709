//! Running a process to completion: timeout, output cap, cancellation and streaming.
//!
//! Used by `command/exec` and by the model tools that return only once a command has finished.

#[cfg(test)]
mod tests;

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::tools::exec::process::{OutputChunk, OutputStream, RunningProcess};

/// The exit code reported when the timeout killed the command, as `timeout(1)` does.
pub const TIMEOUT_EXIT_CODE: i32 = 124;

/// How long to keep reading after the command exited, for output still in flight.
///
/// A background child that inherited stdout could keep the pipe open forever; after this the
/// remaining output is dropped (and the child killed with the group when the process drops).
pub(super) const OUTPUT_DRAIN_TIMEOUT: Duration = Duration::from_millis(500);

/// A chunk of streamed output (already cut to the cap) and whether its stream has now
/// reached the cap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamedChunk {
    /// The output.
    pub chunk: OutputChunk,
    /// Whether this chunk filled its stream's cap.
    pub cap_reached: bool,
}

/// How to run a process to completion.
pub struct RunOptions {
    /// Kill the process group after this long and report exit code [`TIMEOUT_EXIT_CODE`].
    pub timeout: Option<Duration>,
    /// Keep at most this many bytes per stream; later output is read and discarded.
    pub output_cap: Option<usize>,
    /// Receives output as it arrives. The run waits for room on this bounded channel, so a
    /// slow receiver stalls the command (through the full pipe) instead of piling up output.
    pub on_chunk: Option<mpsc::Sender<StreamedChunk>>,
    /// Collect output into the result; `false` when it only streams, so an uncapped stream
    /// does not pile up in memory.
    pub buffer_output: bool,
    /// Cancelling kills the process group; the run then ends with the process.
    pub cancel: CancellationToken,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// The exit code: 124 on timeout, 128 + signal for a signal (137 when cancelled).
    pub exit_code: i32,
    /// Standard output, up to the cap (empty unless `buffer_output`).
    pub stdout: Vec<u8>,
    /// Standard error, up to the cap (empty unless `buffer_output`).
    pub stderr: Vec<u8>,
    /// Both streams interleaved in arrival order (empty unless `buffer_output`).
    pub aggregated: Vec<u8>,
    /// Whether a stream reached the output cap.
    pub cap_reached: bool,
    /// Whether the timeout killed the process.
    pub timed_out: bool,
    /// Whether cancellation killed the process.
    pub cancelled: bool,
    /// From the start of the run to its end.
    pub duration: Duration,
}

/// Waits for `process` to exit while collecting its output, then kills what is left of its
/// process group (by dropping it).
pub async fn run(mut process: RunningProcess, options: RunOptions) -> RunResult {
    let started = Instant::now();
    let deadline = options.timeout.map(|timeout| started + timeout);
    let mut output = process.take_output();
    let mut collector = Collector {
        cap: options.output_cap,
        on_chunk: options.on_chunk,
        buffer_output: options.buffer_output,
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_len: 0,
        stderr_len: 0,
        aggregated: Vec::new(),
        cap_reached: false,
    };
    let mut output_open = output.is_some();
    let mut timed_out = false;
    let mut cancelled = false;
    let exit = loop {
        let killed = timed_out || cancelled;
        tokio::select! {
            outcome = process.wait() => break outcome,
            chunk = receive(&mut output), if output_open => match chunk {
                Some(chunk) => collector.push(chunk).await,
                None => output_open = false,
            },
            () = sleep_until(deadline), if !killed => {
                timed_out = true;
                process.kill();
            }
            () = options.cancel.cancelled(), if !killed => {
                cancelled = true;
                process.kill();
            }
        }
    };
    if let Some(receiver) = output.as_mut().filter(|_| output_open) {
        let drain_deadline = Instant::now() + OUTPUT_DRAIN_TIMEOUT;
        while let Ok(Some(chunk)) = tokio::time::timeout_at(drain_deadline, receiver.recv()).await {
            collector.push(chunk).await;
        }
    }
    let exit_code = if timed_out {
        TIMEOUT_EXIT_CODE
    } else {
        exit.exit_code
    };
    RunResult {
        exit_code,
        stdout: collector.stdout,
        stderr: collector.stderr,
        aggregated: collector.aggregated,
        cap_reached: collector.cap_reached,
        timed_out,
        cancelled,
        duration: started.elapsed(),
    }
}

struct Collector {
    cap: Option<usize>,
    on_chunk: Option<mpsc::Sender<StreamedChunk>>,
    buffer_output: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Bytes kept per stream, counted even when not buffered, for the cap.
    stdout_len: usize,
    stderr_len: usize,
    aggregated: Vec<u8>,
    cap_reached: bool,
}

impl Collector {
    async fn push(&mut self, mut chunk: OutputChunk) {
        let (kept, buffer) = match chunk.stream {
            OutputStream::Stdout => (&mut self.stdout_len, &mut self.stdout),
            OutputStream::Stderr => (&mut self.stderr_len, &mut self.stderr),
        };
        let room = self.cap.map_or(usize::MAX, |cap| cap.saturating_sub(*kept));
        if room == 0 {
            return;
        }
        chunk.bytes.truncate(room);
        *kept += chunk.bytes.len();
        let reached = self.cap.is_some_and(|cap| *kept >= cap);
        self.cap_reached |= reached;
        if self.buffer_output {
            buffer.extend_from_slice(&chunk.bytes);
            self.aggregated.extend_from_slice(&chunk.bytes);
        }
        if let Some(on_chunk) = &self.on_chunk {
            let streamed = StreamedChunk {
                chunk,
                cap_reached: reached,
            };
            if on_chunk.send(streamed).await.is_err() {
                // Nobody listens any more; keep draining so the command is not stalled.
                self.on_chunk = None;
            }
        }
    }
}

async fn receive(output: &mut Option<mpsc::Receiver<OutputChunk>>) -> Option<OutputChunk> {
    match output {
        Some(receiver) => receiver.recv().await,
        None => None,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
