//! Spawning one command in its own process group, on pipes or a pseudo-terminal.
//!
//! Every command becomes a session leader (`setsid()` before `exec`), so its process id is also
//! the id of a process group that holds the command and everything it forks.
//! Killing that group (`kill(-pgid, SIGKILL)`) is how interrupts, timeouts and shutdown make
//! sure no grandchild outlives the command; [`RunningProcess`] does it on drop.
//! Only processes that leave the group themselves (another `setsid`, a daemon) escape.

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{Mutex, mpsc, watch};

use crate::tools::exec::ExecError;

/// What to run and how to connect it.
#[derive(Clone, Debug)]
pub struct SpawnSpec {
    /// Program and arguments; the program is looked up in `PATH` when it has no slash.
    pub argv: Vec<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// The whole environment of the command: nothing of the server's is inherited (see
    /// [`crate::tools::exec::environment`]).
    pub environment: BTreeMap<OsString, OsString>,
    /// Give the process a stdin pipe (`true`) or `/dev/null` (`false`).
    /// Ignored with `tty`: the terminal is always the process's stdin.
    pub stdin: bool,
    /// Run on a new pseudo-terminal of this size instead of pipes.
    pub tty: Option<TerminalSize>,
}

/// The size of a pseudo-terminal, in character cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TerminalSize {
    /// Rows.
    pub rows: u16,
    /// Columns.
    pub cols: u16,
}

/// Which stream a chunk of output came from; a terminal's output is [`OutputStream::Stdout`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputStream {
    /// Standard output, or the terminal.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Bytes a process wrote, as they were read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputChunk {
    /// Where they came from.
    pub stream: OutputStream,
    /// The bytes; never empty.
    pub bytes: Vec<u8>,
}

/// How a process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitOutcome {
    /// The exit status, or 128 + the signal number when a signal killed the process.
    pub exit_code: i32,
}

/// A spawned command. Dropping it kills the command's whole process group.
///
/// The output arrives on a bounded channel (see [`RunningProcess::take_output`]): whoever holds
/// it must keep reading, or the command blocks once the buffer and the pipe are full.
#[derive(Debug)]
pub struct RunningProcess {
    pid: u32,
    output: Option<mpsc::Receiver<OutputChunk>>,
    control: ProcessControl,
    exit: watch::Receiver<Option<ExitOutcome>>,
}

/// A cloneable handle that writes to, resizes and kills a process without owning it.
///
/// Registries keep one so that `command/exec/write` and friends can reach a process while the
/// task that runs it owns the [`RunningProcess`].
#[derive(Clone, Debug)]
pub struct ProcessControl {
    inner: Arc<ControlInner>,
}

#[derive(Debug)]
struct ControlInner {
    /// The process group id, which is the leader's pid because the child called `setsid`.
    pgid: libc::pid_t,
    killed: AtomicBool,
    stdin: Mutex<StdinSink>,
    terminal: Option<Arc<AsyncFd<OwnedFd>>>,
}

#[derive(Debug)]
enum StdinSink {
    Pipe(ChildStdin),
    Terminal(Arc<AsyncFd<OwnedFd>>),
    Closed,
}

/// Bytes read from a pipe or the terminal at a time.
const READ_CHUNK_BYTES: usize = 8192;

/// Chunks buffered between the readers and the consumer before the readers wait.
const OUTPUT_CHANNEL_CAPACITY: usize = 64;

/// The terminal's end-of-file character (`VEOF`, Ctrl-D), sent to "close" a terminal's stdin.
const TERMINAL_EOF: u8 = 0x04;

/// Starts a command in its own process group.
///
/// Must be called inside a tokio runtime: the output readers and the exit watcher are tasks.
pub fn spawn(spec: SpawnSpec) -> Result<RunningProcess, ExecError> {
    let Some((program, args)) = spec.argv.split_first() else {
        return Err(ExecError::EmptyCommand);
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(&spec.environment);
    let (output_sender, output_receiver) = mpsc::channel(OUTPUT_CHANNEL_CAPACITY);
    let (pid, control, child) = match spec.tty {
        None => spawn_piped(command, spec.stdin, output_sender)?,
        Some(size) => spawn_on_terminal(command, size, output_sender)?,
    };
    Ok(RunningProcess {
        pid,
        output: Some(output_receiver),
        control,
        exit: watch_exit(child),
    })
}

impl RunningProcess {
    /// The process id, which is also its process group id.
    #[cfg(test)]
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Takes the output channel; `None` after the first call.
    ///
    /// The channel ends once every holder of the command's stdout, stderr or terminal has
    /// closed it, which can be later than the exit of the command itself.
    pub fn take_output(&mut self) -> Option<mpsc::Receiver<OutputChunk>> {
        self.output.take()
    }

    /// A handle for writing, resizing and killing from elsewhere.
    pub fn control(&self) -> ProcessControl {
        self.control.clone()
    }

    /// Whether the process runs on a pseudo-terminal.
    pub fn has_terminal(&self) -> bool {
        self.control.has_terminal()
    }

    /// Writes all of `bytes` to the process's stdin (or terminal).
    pub async fn write_stdin(&self, bytes: &[u8]) -> Result<(), ExecError> {
        self.control.write_stdin(bytes).await
    }

    /// Sends `SIGKILL` to the whole process group. Only the first call does anything.
    pub fn kill(&self) {
        self.control.kill();
    }

    /// Waits for the process (the group leader) to exit.
    pub async fn wait(&self) -> ExitOutcome {
        let mut exit = self.exit.clone();
        let outcome = match exit.wait_for(Option::is_some).await {
            Ok(outcome) => *outcome,
            Err(_) => None,
        };
        outcome.unwrap_or_else(|| {
            // The watcher task only disappears without an answer when the runtime shuts down.
            tracing::warn!(pid = self.pid, "exit status of a child process was lost");
            ExitOutcome { exit_code: -1 }
        })
    }

    /// How the process ended, if it already has.
    #[cfg(test)]
    pub fn exit_outcome(&self) -> Option<ExitOutcome> {
        *self.exit.borrow()
    }
}

impl Drop for RunningProcess {
    fn drop(&mut self) {
        // Also reaches background children the command left behind after it exited.
        self.control.kill();
    }
}

impl ProcessControl {
    /// Writes all of `bytes` to the process's stdin (or terminal).
    pub async fn write_stdin(&self, bytes: &[u8]) -> Result<(), ExecError> {
        let mut stdin = self.inner.stdin.lock().await;
        match &mut *stdin {
            StdinSink::Pipe(pipe) => {
                pipe.write_all(bytes).await.map_err(ExecError::StdinWrite)?;
                pipe.flush().await.map_err(ExecError::StdinWrite)
            }
            StdinSink::Terminal(terminal) => write_terminal(terminal, bytes)
                .await
                .map_err(ExecError::StdinWrite),
            StdinSink::Closed => Err(ExecError::StdinClosed),
        }
    }

    /// Closes stdin; on a terminal, sends the end-of-file character instead, since closing the
    /// terminal would also end the output.
    pub async fn close_stdin(&self) -> Result<(), ExecError> {
        let mut stdin = self.inner.stdin.lock().await;
        match std::mem::replace(&mut *stdin, StdinSink::Closed) {
            StdinSink::Pipe(pipe) => {
                drop(pipe);
                Ok(())
            }
            StdinSink::Terminal(terminal) => write_terminal(&terminal, &[TERMINAL_EOF])
                .await
                .map_err(ExecError::StdinWrite),
            StdinSink::Closed => Ok(()),
        }
    }

    /// Changes the terminal size; the process gets `SIGWINCH`.
    pub fn resize(&self, size: TerminalSize) -> Result<(), ExecError> {
        let Some(terminal) = &self.inner.terminal else {
            return Err(ExecError::NoTerminal);
        };
        set_terminal_size(terminal.get_ref().as_raw_fd(), size).map_err(ExecError::Resize)
    }

    /// Sends `SIGKILL` to the whole process group. Only the first call does anything.
    pub fn kill(&self) {
        if self.inner.killed.swap(true, Ordering::SeqCst) {
            return;
        }
        let pgid = self.inner.pgid;
        // `kill(-1)` would hit every process we may signal and `kill(0)` our own group.
        if pgid <= 1 {
            tracing::error!(pgid, "refusing to kill a suspicious process group");
            return;
        }
        // SAFETY: `kill` has no memory-safety preconditions; a negative pid names the group.
        let result = unsafe { libc::kill(-pgid, libc::SIGKILL) };
        if result != 0 {
            let error = io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::ESRCH) {
                tracing::warn!(pgid, %error, "failed to kill a process group");
            }
        }
    }

    /// Whether the process runs on a pseudo-terminal.
    pub fn has_terminal(&self) -> bool {
        self.inner.terminal.is_some()
    }
}

fn spawn_piped(
    mut command: Command,
    stdin: bool,
    output: mpsc::Sender<OutputChunk>,
) -> Result<(u32, ProcessControl, Child), ExecError> {
    command
        .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: `start_session` runs in the forked child before `exec` and only calls `setsid`,
    // which is async-signal-safe; it allocates nothing and takes no locks.
    unsafe { command.pre_exec(start_session) };
    let mut child = command.spawn().map_err(ExecError::Spawn)?;
    let pid = child_pid(&child)?;
    if let Some(stdout) = child.stdout.take() {
        tokio::spawn(read_pipe(stdout, OutputStream::Stdout, output.clone()));
    }
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(read_pipe(stderr, OutputStream::Stderr, output));
    }
    let stdin = match child.stdin.take() {
        Some(pipe) => StdinSink::Pipe(pipe),
        None => StdinSink::Closed,
    };
    let control = ProcessControl::new(pid, stdin, None);
    Ok((pid, control, child))
}

fn spawn_on_terminal(
    mut command: Command,
    size: TerminalSize,
    output: mpsc::Sender<OutputChunk>,
) -> Result<(u32, ProcessControl, Child), ExecError> {
    let (master, slave) = open_terminal(size).map_err(ExecError::Spawn)?;
    // SAFETY: `master` is an open descriptor, and the `AsyncFd` owns it until it is dropped.
    let terminal =
        unsafe { AsyncFd::register(master) }.map_err(|error| ExecError::Spawn(error.into()))?;
    let terminal = Arc::new(terminal);
    let stdin = slave.try_clone().map_err(ExecError::Spawn)?;
    let stdout = slave.try_clone().map_err(ExecError::Spawn)?;
    command
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(slave));
    // SAFETY: the closure runs in the forked child before `exec` (after stdio is set up) and
    // only calls `setsid` and `ioctl`, which are async-signal-safe; it allocates nothing.
    unsafe {
        command.pre_exec(|| {
            start_session()?;
            // Make the terminal (already on fd 0) the controlling terminal of the new session,
            // so that job control, `tty` and Ctrl-C behave as in a real terminal.
            // TIOCSCTTY takes an integer argument, not a pointer.
            if libc::ioctl(0, libc::TIOCSCTTY, 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let child = command.spawn().map_err(ExecError::Spawn)?;
    // The command holds our copies of the terminal's slave side; the reader only sees the end
    // of the output once every copy is closed.
    drop(command);
    let pid = child_pid(&child)?;
    tokio::spawn(read_terminal(Arc::clone(&terminal), output));
    let stdin = StdinSink::Terminal(Arc::clone(&terminal));
    let control = ProcessControl::new(pid, stdin, Some(terminal));
    Ok((pid, control, child))
}

impl ProcessControl {
    fn new(pid: u32, stdin: StdinSink, terminal: Option<Arc<AsyncFd<OwnedFd>>>) -> Self {
        let pgid = libc::pid_t::try_from(pid).unwrap_or(0);
        let inner = ControlInner {
            pgid,
            killed: AtomicBool::new(false),
            stdin: Mutex::new(stdin),
            terminal,
        };
        Self {
            inner: Arc::new(inner),
        }
    }
}

/// Makes the child the leader of a new session and process group. Runs between `fork` and
/// `exec`, so it must stay async-signal-safe.
fn start_session() -> io::Result<()> {
    // SAFETY: `setsid` has no preconditions.
    if unsafe { libc::setsid() } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn child_pid(child: &Child) -> Result<u32, ExecError> {
    match child.id() {
        Some(pid) => Ok(pid),
        None => Err(ExecError::Spawn(io::Error::other(
            "the process was reaped before its id was read",
        ))),
    }
}

/// Reaps the child in a task and publishes how it ended.
fn watch_exit(mut child: Child) -> watch::Receiver<Option<ExitOutcome>> {
    let (sender, receiver) = watch::channel(None);
    tokio::spawn(async move {
        let exit_code = match child.wait().await {
            Ok(status) => exit_code_of(status),
            Err(error) => {
                tracing::warn!(%error, "failed to wait for a child process");
                -1
            }
        };
        sender.send_replace(Some(ExitOutcome { exit_code }));
    });
    receiver
}

fn exit_code_of(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => -1,
    }
}

async fn read_pipe(
    mut pipe: impl AsyncRead + Unpin,
    stream: OutputStream,
    output: mpsc::Sender<OutputChunk>,
) {
    let mut buffer = vec![0; READ_CHUNK_BYTES];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) => break,
            Ok(read) => {
                let chunk = OutputChunk {
                    stream,
                    bytes: buffer[..read].to_vec(),
                };
                if output.send(chunk).await.is_err() {
                    break;
                }
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                tracing::debug!(%error, "reading command output failed");
                break;
            }
        }
    }
}

async fn read_terminal(terminal: Arc<AsyncFd<OwnedFd>>, output: mpsc::Sender<OutputChunk>) {
    let mut buffer = vec![0; READ_CHUNK_BYTES];
    loop {
        let mut guard = match terminal.readable().await {
            Ok(guard) => guard,
            Err(error) => {
                tracing::debug!(%error, "polling the terminal failed");
                break;
            }
        };
        let result = guard.try_io(|terminal| read_fd(terminal.get_ref().as_raw_fd(), &mut buffer));
        drop(guard);
        match result {
            // Not actually readable yet; `try_io` cleared the readiness.
            Err(_would_block) => {}
            Ok(Ok(0)) => break,
            Ok(Ok(read)) => {
                let chunk = OutputChunk {
                    stream: OutputStream::Stdout,
                    bytes: buffer[..read].to_vec(),
                };
                if output.send(chunk).await.is_err() {
                    break;
                }
            }
            Ok(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
            // EIO is how Linux reports that every process closed the slave side: end of output.
            Ok(Err(error)) if error.raw_os_error() == Some(libc::EIO) => break,
            Ok(Err(error)) => {
                tracing::debug!(%error, "reading the terminal failed");
                break;
            }
        }
    }
}

async fn write_terminal(terminal: &AsyncFd<OwnedFd>, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        let mut guard = terminal.writable().await?;
        match guard.try_io(|terminal| write_fd(terminal.get_ref().as_raw_fd(), bytes)) {
            Err(_would_block) => {}
            Ok(Ok(written)) => bytes = &bytes[written..],
            Ok(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
            Ok(Err(error)) => return Err(error),
        }
    }
    Ok(())
}

fn read_fd(fd: RawFd, buffer: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buffer` is valid for writes of `buffer.len()` bytes for the whole call.
    let read = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
    usize::try_from(read).map_err(|_| io::Error::last_os_error())
}

fn write_fd(fd: RawFd, bytes: &[u8]) -> io::Result<usize> {
    // SAFETY: `bytes` is valid for reads of `bytes.len()` bytes for the whole call.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    usize::try_from(written).map_err(|_| io::Error::last_os_error())
}

/// Opens a pseudo-terminal pair: a non-blocking master for us and the slave for the child.
///
/// Both descriptors are close-on-exec, so no other child spawned meanwhile inherits them (an
/// inherited slave would keep the output from ever ending); the child gets the slave through
/// `dup2`, which clears the flag on the copy.
fn open_terminal(size: TerminalSize) -> io::Result<(OwnedFd, OwnedFd)> {
    // SAFETY: `posix_openpt` takes flags only and returns a new descriptor or -1.
    let raw_master = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC) };
    if raw_master < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw_master` is a descriptor we just opened and nothing else owns.
    let master = unsafe { OwnedFd::from_raw_fd(raw_master) };
    // SAFETY: `grantpt` and `unlockpt` only operate on the open master descriptor.
    if unsafe { libc::grantpt(master.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::unlockpt(master.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut name: [libc::c_char; 128] = [0; 128];
    // SAFETY: `name` is writable for its whole length, which is the length we pass.
    let result = unsafe { libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()) };
    if result != 0 {
        return Err(io::Error::from_raw_os_error(result));
    }
    // SAFETY: `ptsname_r` succeeded, so `name` holds a NUL-terminated path.
    let raw_slave = unsafe {
        libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        )
    };
    if raw_slave < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw_slave` is a descriptor we just opened and nothing else owns.
    let slave = unsafe { OwnedFd::from_raw_fd(raw_slave) };
    set_terminal_size(master.as_raw_fd(), size)?;
    set_nonblocking(master.as_raw_fd())?;
    Ok((master, slave))
}

fn set_terminal_size(fd: RawFd, size: TerminalSize) -> io::Result<()> {
    let winsize = libc::winsize {
        ws_row: size.rows,
        ws_col: size.cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads one `winsize`, and the pointer is valid for the call.
    if unsafe { libc::ioctl(fd, libc::TIOCSWINSZ, &raw const winsize) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: F_GETFL takes no argument and only reads the descriptor's flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: F_SETFL takes an integer argument.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
