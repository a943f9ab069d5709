//! The Linux sandbox: a helper process (`tandem sandbox-exec`, hidden) that applies Landlock
//! and seccomp to itself and then execs the command.
//!
//! The parent (the command runner, inside the multi-threaded server) never confines itself:
//! it calls [`wrap_command`] to turn a command line into one that re-executes our own binary
//! in sandbox mode. The helper is a fresh, single-threaded process, which is what
//! `unshare(CLONE_NEWUSER)` requires and where the allocating Landlock setup is safe (it would
//! not be inside `Command::pre_exec`). It then:
//!
//! 1. sets `PR_SET_NO_NEW_PRIVS`;
//! 2. keeps `.git` under each writable root read-only and the hidden paths (`--hide`,
//!    `$TANDEM_HOME`: credentials and every thread's rollout) unreadable but for the exposed
//!    directories inside them (`--expose`, `$TANDEM_HOME/skills`: readable, never writable):
//!    with a read-only bind mount and an empty `tmpfs` in a private mount namespace (a plain one when we have
//!    `CAP_SYS_ADMIN`, else an unprivileged user namespace), or, when namespaces are
//!    unavailable (containers, hardened kernels), with Landlock alone by granting access to
//!    each child of a directory except the excluded one: in that mode new top-level entries
//!    cannot be created in a root holding `.git`, and new entries of the directories above a
//!    hidden path cannot be read;
//! 3. installs a seccomp filter that denies network sockets (unless the policy allows the
//!    network);
//! 4. applies a Landlock ruleset: read and execute everywhere (but the hidden paths), write
//!    below the writable roots and on `/dev/null` and `/dev/tty`;
//! 5. execs the command.
//!
//! The sandbox is enforced, never advisory: if any step fails, or the kernel cannot enforce
//! Landlock, the helper exits with status 126 without running the command, and
//! [`wrap_command`] refuses up front on kernels without Landlock.

mod filesystem;
mod helper;
mod hidden;
mod namespace;
mod plan;
mod seccomp;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use app_server_protocol::policy::SandboxPolicy;

pub use crate::sandbox::hidden::Concealment;

/// Arguments of the hidden `tandem sandbox-exec` subcommand.
///
/// Built by [`wrap_command`]; the layout is
/// `tandem sandbox-exec --policy <JSON> --cwd <DIR> [--hide <PATH>]... [--expose <PATH>]...
/// [--debug] -- <COMMAND>...`.
#[derive(Debug, clap::Args)]
pub struct SandboxExecArgs {
    /// The sandbox policy, as the JSON of a protocol `SandboxPolicy`.
    #[arg(long, value_name = "JSON")]
    pub policy: String,

    /// The workspace the policy refers to (writable under `workspaceWrite`). The command itself
    /// runs in the helper's current directory, which may be a different one.
    #[arg(long, value_name = "DIR")]
    pub cwd: PathBuf,

    /// A path the command may not read (nor write) at all, whatever the policy grants:
    /// `$TANDEM_HOME`. Repeatable; a path that does not exist is ignored, and a command whose
    /// working directory lies inside one is refused.
    #[arg(long = "hide", value_name = "PATH")]
    pub hide: Vec<PathBuf>,

    /// A directory inside a `--hide` path that the command may still read, never write:
    /// `$TANDEM_HOME/skills`. Repeatable; one that does not exist, lies outside every hidden
    /// path or leads elsewhere into one stays hidden.
    #[arg(long = "expose", value_name = "PATH")]
    pub expose: Vec<PathBuf>,

    /// Log the confinement steps (which `.git` protection was used, the write grants) on
    /// stderr.
    #[arg(long)]
    pub debug: bool,

    /// Protect `.git` with Landlock alone, without a mount namespace. This is the fallback
    /// that is otherwise used only where namespaces are unavailable; tests use it to cover
    /// that mode.
    #[arg(long, hide = true)]
    pub no_namespace: bool,

    /// The command to run, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Why a command cannot be sandboxed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel cannot enforce the sandbox; the message says what is missing.
    #[error("{0}")]
    Unsupported(String),
    /// The path of our own executable, which runs the helper, is unknown.
    #[error("cannot locate the tandem executable: {0}")]
    CurrentExe(#[source] io::Error),
    /// There is nothing to run.
    #[error("no command to run")]
    EmptyCommand,
    /// A path cannot be passed on the helper's command line.
    #[error("path is not valid utf-8: {}", .0.display())]
    NonUtf8Path(PathBuf),
    /// A path cannot be passed to the kernel.
    #[error("path contains a nul byte: {}", .0.display())]
    InvalidPath(PathBuf),
    /// The policy given to the helper does not parse (or the parent could not encode it).
    #[error("invalid sandbox policy: {0}")]
    InvalidPolicy(#[source] serde_json::Error),
    /// A system call needed for confinement failed.
    #[error("{call} failed: {source}")]
    Syscall {
        /// The call, as written in C.
        call: &'static str,
        /// The error it returned.
        #[source]
        source: io::Error,
    },
    /// A mount needed to keep a protected path read-only failed.
    #[error("cannot {action} {}: {source}", .path.display())]
    Mount {
        /// What we tried: "change the propagation of", "bind-mount" or "remount read-only".
        action: &'static str,
        /// The mount point.
        path: PathBuf,
        /// The error `mount` returned.
        #[source]
        source: io::Error,
    },
    /// Listing a writable root (for the Landlock-only `.git` protection) failed.
    #[error("cannot list a writable root: {0}")]
    ReadWritableRoot(#[source] io::Error),
    /// Listing the directories above a hidden path (for the Landlock-only protection) failed.
    #[error("cannot list the directories above a hidden path: {0}")]
    ReadAboveHidden(#[source] io::Error),
    /// The command would run inside a path it may not read.
    #[error("the working directory {} lies inside {}, which sandboxed commands may not read (TANDEM_HOME); run the command elsewhere", .cwd.display(), .hidden.display())]
    InsideHiddenPath {
        /// The command's working directory.
        cwd: PathBuf,
        /// The hidden path holding it.
        hidden: PathBuf,
    },
    /// Building or applying the Landlock ruleset failed.
    #[error("landlock: {0}")]
    Landlock(#[from] landlock::RulesetError),
    /// Applying the seccomp filter failed.
    #[error("seccomp: {0}")]
    Seccomp(#[from] seccompiler::Error),
    /// Building the seccomp filter failed (for example, on an unsupported architecture).
    #[error("seccomp filter: {0}")]
    SeccompFilter(#[from] seccompiler::BackendError),
}

/// Returns the command line to spawn so that `argv` runs under `policy`.
///
/// `cwd` is the workspace that `policy` refers to; `concealed` names the paths the command may
/// not read (`$TANDEM_HOME`) and the directories inside them it may. Full access (and an
/// external sandbox) returns `argv` unchanged; anything else returns
/// `[<tandem>, "sandbox-exec", "--policy", <json>, "--cwd", <cwd>, "--hide", <path>, ...,
/// "--expose", <path>, ..., "--", argv...]`,
/// or [`SandboxError::Unsupported`] when this kernel cannot enforce the sandbox: the command
/// must then not run at all.
pub fn wrap_command(
    policy: &SandboxPolicy,
    cwd: &Path,
    concealed: &Concealment,
    argv: &[String],
) -> Result<Vec<String>, SandboxError> {
    if matches!(
        policy,
        SandboxPolicy::DangerFullAccess | SandboxPolicy::ExternalSandbox { .. }
    ) {
        return Ok(argv.to_vec());
    }
    if argv.is_empty() {
        return Err(SandboxError::EmptyCommand);
    }
    sandbox_status()?;
    let executable = match std::env::current_exe() {
        Ok(executable) => utf8(executable)?,
        Err(source) => return Err(SandboxError::CurrentExe(source)),
    };
    let cwd = match std::path::absolute(cwd) {
        Ok(cwd) => utf8(cwd)?,
        Err(_) => return Err(SandboxError::InvalidPath(cwd.to_path_buf())),
    };
    let policy = match serde_json::to_string(policy) {
        Ok(policy) => policy,
        Err(source) => return Err(SandboxError::InvalidPolicy(source)),
    };
    let mut wrapped = vec![
        executable,
        "sandbox-exec".to_string(),
        "--policy".to_string(),
        policy,
        "--cwd".to_string(),
        cwd,
    ];
    let flagged = (concealed.hidden.iter().map(|path| ("--hide", path)))
        .chain(concealed.exposed.iter().map(|path| ("--expose", path)));
    for (flag, path) in flagged {
        let path = match std::path::absolute(path) {
            Ok(path) => utf8(path)?,
            Err(_) => return Err(SandboxError::InvalidPath(path.clone())),
        };
        wrapped.push(flag.to_string());
        wrapped.push(path);
    }
    if tracing::enabled!(tracing::Level::DEBUG) {
        wrapped.push("--debug".to_string());
    }
    wrapped.push("--".to_string());
    wrapped.extend(argv.iter().cloned());
    Ok(wrapped)
}

/// Whether this system can enforce the sandbox (Landlock and seccomp filters), probed once.
///
/// The probe creates a Landlock ruleset without applying it, so the caller stays unconfined.
pub fn sandbox_status() -> Result<(), SandboxError> {
    static STATUS: OnceLock<Result<(), String>> = OnceLock::new();
    match STATUS.get_or_init(probe_support) {
        Ok(()) => Ok(()),
        Err(reason) => Err(SandboxError::Unsupported(reason.clone())),
    }
}

/// Runs the sandbox helper: confine this process, then exec the command.
///
/// Never returns: the process becomes the command, or exits with status 126 (could not
/// confine; nothing ran) or 127 (the confined command could not be executed), after saying
/// why on stderr.
pub fn run_sandbox_exec(args: &SandboxExecArgs) -> ! {
    if args.debug {
        let _ = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(io::stderr)
            .with_ansi(false)
            .without_time()
            .try_init();
    }
    std::process::exit(helper::confine_and_exec(args))
}

fn probe_support() -> Result<(), String> {
    if let Err(error) = filesystem::probe() {
        return Err(error.to_string());
    }
    // SAFETY: PR_GET_SECCOMP takes no pointer arguments; it reports this thread's mode.
    if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 {
        return Err(format!(
            "the kernel does not support seccomp ({}); commands cannot be sandboxed",
            io::Error::last_os_error()
        ));
    }
    Ok(())
}

fn utf8(path: PathBuf) -> Result<String, SandboxError> {
    match path.into_os_string().into_string() {
        Ok(path) => Ok(path),
        Err(path) => Err(SandboxError::NonUtf8Path(PathBuf::from(path))),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use pretty_assertions::assert_eq;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Debug, clap::Subcommand)]
    enum Command {
        SandboxExec(SandboxExecArgs),
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    #[test]
    fn full_access_and_external_sandbox_run_the_command_as_is() {
        let command = argv(&["git", "status"]);
        for policy in [
            SandboxPolicy::DangerFullAccess,
            SandboxPolicy::ExternalSandbox {
                network_access: None,
            },
        ] {
            assert_eq!(
                wrap_command(
                    &policy,
                    Path::new("/work"),
                    &Concealment::default(),
                    &command
                )
                .unwrap(),
                command
            );
        }
    }

    #[test]
    fn sandboxed_commands_reexecute_tandem_or_are_refused() {
        let policy = SandboxPolicy::WorkspaceWrite {
            writable_roots: Some(vec!["/var/cache/build".to_string()]),
            network_access: Some(false),
            exclude_tmpdir_env_var: None,
            exclude_slash_tmp: Some(true),
        };
        let command = argv(&["bash", "-c", "echo --policy"]);
        let concealed = Concealment::tandem_home(Path::new("/home/user/.tandem"));
        let result = wrap_command(&policy, Path::new("/work/repo"), &concealed, &command);
        if let Err(reason) = sandbox_status() {
            assert!(
                !sandbox_required(),
                "the sandbox is not enforced here: {reason}"
            );
            // No Landlock here: the command must be refused, never run unconfined.
            let error = result.unwrap_err();
            assert!(matches!(error, SandboxError::Unsupported(_)), "{error:?}");
            assert_eq!(error.to_string(), reason.to_string());
            return;
        }
        let wrapped = result.unwrap();
        assert_eq!(
            wrapped[0],
            std::env::current_exe().unwrap().to_str().unwrap()
        );
        // The helper's own parser reads back exactly the policy, workspace and command.
        let parsed = Cli::try_parse_from(&wrapped).unwrap();
        let Command::SandboxExec(args) = parsed.command;
        assert_eq!(
            serde_json::from_str::<SandboxPolicy>(&args.policy).unwrap(),
            policy
        );
        assert_eq!(args.cwd, PathBuf::from("/work/repo"));
        assert_eq!(args.hide, concealed.hidden);
        assert_eq!(
            args.expose,
            vec![PathBuf::from("/home/user/.tandem/skills")]
        );
        assert_eq!(args.command, command);
        assert!(!args.no_namespace);
    }

    /// `TANDEM_REQUIRE_LANDLOCK=1` (CI): a machine without Landlock or seccomp fails the tests.
    fn sandbox_required() -> bool {
        std::env::var("TANDEM_REQUIRE_LANDLOCK").is_ok_and(|value| value == "1")
    }

    #[test]
    fn an_empty_command_is_an_error() {
        let policy = SandboxPolicy::ReadOnly {
            network_access: None,
        };
        let error =
            wrap_command(&policy, Path::new("/"), &Concealment::default(), &[]).unwrap_err();
        assert_eq!(error.to_string(), "no command to run");
    }

    #[test]
    fn this_machine_supports_the_sandbox_or_says_why_not() {
        match sandbox_status() {
            Ok(()) => {}
            Err(error) => {
                assert!(
                    !sandbox_required(),
                    "the sandbox is not enforced here: {error}"
                );
                let message = error.to_string();
                assert!(message.contains("landlock") || message.contains("seccomp"));
                assert!(message.contains("cannot be"), "{message}");
            }
        }
    }
}
