//! `tandem app-server daemon start | stop | restart | version`: one shared app-server per
//! `TANDEM_HOME`, listening on the default `unix://` socket, which IDE processes reach through
//! `tandem app-server proxy`.
//!
//! The daemon is `tandem app-server --listen unix://` started in its own session, with its
//! stderr appended to `$TANDEM_HOME/app-server-daemon/daemon.stderr.log`. Its pid and version
//! are kept in `daemon.pid` (JSON); `daemon.lock` (an exclusive `flock`) makes concurrent
//! `start` and `stop` commands take turns, so that two starts never race to two daemons. Each
//! command prints one JSON object with the status, as the reference's does.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::listener::socket;
use crate::listener_auth::write_private_file;
use tandem_core::sync::FileLock;

/// The daemon's directory under `$TANDEM_HOME` (mode 0700).
const DAEMON_DIR: &str = "app-server-daemon";
/// How long `start` waits for the daemon to answer on its socket.
const START_TIMEOUT: Duration = Duration::from_secs(15);
/// How long `stop` waits for the daemon to exit after SIGTERM before SIGKILL.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
/// How often `start` and `stop` look again while they wait.
const POLL: Duration = Duration::from_millis(20);

/// What `daemon` was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::Subcommand)]
pub enum DaemonCommand {
    /// Start the daemon unless it is already running.
    Start,
    /// Stop the daemon.
    Stop,
    /// Stop the daemon if it runs, then start it.
    Restart,
    /// Print this CLI's version and the running daemon's as JSON.
    Version,
}

/// The files of one home's daemon.
struct Paths {
    dir: PathBuf,
    socket: PathBuf,
}

impl Paths {
    fn of(home: &Path) -> Paths {
        Paths {
            dir: home.join(DAEMON_DIR),
            socket: socket::default_path(home),
        }
    }

    fn pid_file(&self) -> PathBuf {
        self.dir.join("daemon.pid")
    }

    fn log_file(&self) -> PathBuf {
        self.dir.join("daemon.stderr.log")
    }
}

/// Runs a `daemon` command for `home`, passing `overrides` to a daemon it starts; prints the
/// result as one JSON line.
pub fn run(command: DaemonCommand, home: &Path, overrides: &[String]) -> anyhow::Result<()> {
    let paths = Paths::of(home);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&paths.dir)
        .map_err(|error| anyhow::anyhow!("cannot create {}: {error}", paths.dir.display()))?;
    let lock_path = paths.dir.join("daemon.lock");
    let _lock = FileLock::exclusive(&lock_path)
        .map_err(|error| anyhow::anyhow!("cannot lock {}: {error}", lock_path.display()))?;
    let report = match command {
        DaemonCommand::Start => start(&paths, home, overrides)?,
        DaemonCommand::Stop => stop(&paths)?,
        DaemonCommand::Restart => {
            stop(&paths)?;
            start(&paths, home, overrides)?
        }
        DaemonCommand::Version => version(&paths)?,
    };
    print_json(&report);
    Ok(())
}

/// The running daemon: its pid and version, when its pid file names a live process whose
/// socket answers.
fn running(paths: &Paths) -> Option<(i32, String)> {
    let text = std::fs::read_to_string(paths.pid_file()).ok()?;
    let record: Value = serde_json::from_str(&text).ok()?;
    let pid = i32::try_from(record["pid"].as_i64()?).ok()?;
    let version = record["version"].as_str().unwrap_or_default().to_string();
    (is_daemon(pid) && ready(&paths.socket)).then_some((pid, version))
}

fn base_report(paths: &Paths, status: &str) -> Value {
    json!({
        "status": status,
        "socketPath": paths.socket.display().to_string(),
        "cliVersion": env!("CARGO_PKG_VERSION"),
    })
}

fn start(paths: &Paths, home: &Path, overrides: &[String]) -> anyhow::Result<Value> {
    if let Some((pid, version)) = running(paths) {
        let mut report = base_report(paths, "alreadyRunning");
        report["backend"] = json!("pid");
        report["pid"] = json!(pid);
        report["appServerVersion"] = json!(version);
        return Ok(report);
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(paths.log_file())
        .map_err(|error| anyhow::anyhow!("cannot open {}: {error}", paths.log_file().display()))?;
    let mut command = Command::new(std::env::current_exe()?);
    command.arg("app-server");
    for value in overrides {
        command.arg("-c").arg(value);
    }
    command
        .args(["--listen", "unix://"])
        .env("TANDEM_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    // SAFETY: setsid is async-signal-safe; the daemon leaves the caller's session and
    // terminal, so that closing the terminal does not stop it.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|error| anyhow::anyhow!("cannot start the daemon: {error}"))?;
    let pid = i32::try_from(child.id())?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            anyhow::bail!(
                "the daemon exited ({status}) before listening; see {}",
                paths.log_file().display()
            );
        }
        if ready(&paths.socket) {
            break;
        }
        if started.elapsed() > START_TIMEOUT {
            // SAFETY: kill with the pid of our own child and a valid signal.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            let _ = child.wait();
            anyhow::bail!(
                "the daemon did not answer on {} within {START_TIMEOUT:?}; see {}",
                paths.socket.display(),
                paths.log_file().display()
            );
        }
        std::thread::sleep(POLL);
    }
    let record = json!({"pid": pid, "version": env!("CARGO_PKG_VERSION")});
    write_private_file(&paths.pid_file(), record.to_string().as_bytes())
        .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", paths.pid_file().display()))?;
    let mut report = base_report(paths, "started");
    report["backend"] = json!("pid");
    report["pid"] = json!(pid);
    report["appServerVersion"] = json!(env!("CARGO_PKG_VERSION"));
    Ok(report)
}

fn stop(paths: &Paths) -> anyhow::Result<Value> {
    let recorded = std::fs::read_to_string(paths.pid_file())
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|record| record["pid"].as_i64())
        .and_then(|pid| i32::try_from(pid).ok())
        .filter(|pid| is_daemon(*pid));
    let Some(pid) = recorded else {
        let _ = std::fs::remove_file(paths.pid_file());
        return Ok(base_report(paths, "notRunning"));
    };
    // SAFETY: kill with a pid read from our own pid file and a valid signal.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let stopping = Instant::now();
    while alive(pid) {
        if stopping.elapsed() > STOP_TIMEOUT {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            break;
        }
        std::thread::sleep(POLL);
    }
    let _ = std::fs::remove_file(paths.pid_file());
    let mut report = base_report(paths, "stopped");
    report["backend"] = json!("pid");
    report["pid"] = json!(pid);
    Ok(report)
}

fn version(paths: &Paths) -> anyhow::Result<Value> {
    let Some((pid, version)) = running(paths) else {
        anyhow::bail!(
            "failed to connect to {}: no daemon is running (start one with `tandem app-server daemon start`)",
            paths.socket.display()
        );
    };
    let mut report = base_report(paths, "running");
    report["backend"] = json!("pid");
    report["pid"] = json!(pid);
    report["appServerVersion"] = json!(version);
    Ok(report)
}

/// Whether `pid` is a listening `tandem app-server` (its command line holds `app-server` and
/// `--listen`), so that a pid file left by a daemon that died never names, and never gets
/// signalled as, an unrelated process that was given the same pid.
fn is_daemon(pid: i32) -> bool {
    if !alive(pid) {
        return false;
    }
    let Ok(command_line) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let arguments: Vec<&[u8]> = command_line.split(|byte| *byte == 0).collect();
    arguments.contains(&b"app-server".as_slice()) && arguments.contains(&b"--listen".as_slice())
}

/// Whether a process `pid` exists (a zombie child counts until it is reaped).
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    pid > 0 && unsafe { libc::kill(pid, 0) } == 0
}

/// Whether the server on `socket` answers `GET /readyz` with 200.
pub fn ready(socket: &Path) -> bool {
    let Ok(mut stream) = std::os::unix::net::UnixStream::connect(socket) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    if stream
        .write_all(b"GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).is_ok() && &head[9..12] == b"200"
}

#[allow(
    clippy::print_stdout,
    reason = "the daemon commands print their one JSON result on stdout"
)]
fn print_json(report: &Value) {
    println!("{report}");
}
