//! The child side: `tandem sandbox-exec` confines its own process, then execs the command.
//!
//! The order matters. `PR_SET_NO_NEW_PRIVS` comes first (seccomp needs it, and setuid binaries
//! must not regain privileges); the mount namespace comes before Landlock, which forbids
//! mounting once applied (that is also what keeps the command from unmounting our read-only
//! `.git` and the empty file systems over the hidden paths); seccomp and then Landlock, as Codex does; exec is last. Any failure before exec
//! ends the process with status 126 instead of running the command unconfined.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use app_server_protocol::policy::SandboxPolicy;

use crate::sandbox::filesystem::{self, FilesystemRules};
use crate::sandbox::hidden::Exposure;
use crate::sandbox::plan::{self, ConfinementPlan};
use crate::sandbox::{SandboxError, SandboxExecArgs, hidden, namespace, seccomp};

/// Exit status when the command could not be confined (nothing was run).
pub const EXIT_NOT_CONFINED: i32 = 126;
/// Exit status when the confined command could not be executed (not found, not executable).
pub const EXIT_CANNOT_RUN: i32 = 127;

/// How `.git` inside writable roots was kept read-only and the hidden paths unreadable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PathProtection {
    /// No writable root has a `.git` and nothing is hidden.
    NotNeeded,
    /// Read-only bind mounts and empty file systems in a private mount namespace.
    Namespace(namespace::NamespaceKind),
    /// Landlock grants on the children of each directory, except the excluded ones.
    LandlockOnly,
}

/// Confines this process according to `args` and execs the command; returns only the exit
/// status to leave with, after printing why on stderr.
pub fn confine_and_exec(args: &SandboxExecArgs) -> i32 {
    let Some((program, arguments)) = args.command.split_first() else {
        report(format_args!("no command given"));
        return EXIT_NOT_CONFINED;
    };
    if let Err(error) = confine(args) {
        report(format_args!("cannot confine the command: {error}"));
        return EXIT_NOT_CONFINED;
    }
    let error = Command::new(program).args(arguments).exec();
    report(format_args!("cannot run {program}: {error}"));
    EXIT_CANNOT_RUN
}

fn confine(args: &SandboxExecArgs) -> Result<(), SandboxError> {
    let policy: SandboxPolicy = match serde_json::from_str(&args.policy) {
        Ok(policy) => policy,
        Err(source) => return Err(SandboxError::InvalidPolicy(source)),
    };
    let tmpdir = std::env::var_os("TMPDIR");
    let Some(mut plan) = plan::plan_for(&policy, &args.cwd, tmpdir.as_deref()) else {
        tracing::debug!("policy needs no sandbox; running the command as is");
        return Ok(());
    };
    let hidden = hidden::resolve(&args.hide);
    let exposed = hidden::resolve_exposed(&args.expose, &args.hide, &hidden);
    match std::env::current_dir() {
        Ok(cwd) => hidden::check_working_directory(&cwd, &hidden)?,
        Err(source) => {
            return Err(SandboxError::Syscall {
                call: "getcwd",
                source,
            });
        }
    }
    hidden::leave_out(&mut plan, &hidden);
    set_no_new_privs()?;
    let (protection, readable, writable) =
        protect_paths(&plan, &hidden, &exposed, args.no_namespace)?;
    tracing::debug!(?protection, writable = ?writable, protected = ?plan.protected, hidden = ?hidden, exposed = ?exposed, "access");
    if !plan.network_access {
        let program = seccomp::network_filter()?;
        seccomp::install(&program)?;
    }
    let status = filesystem::restrict(&FilesystemRules {
        readable,
        writable,
        network_access: plan.network_access,
    })?;
    tracing::debug!(?status, "landlock ruleset applied");
    Ok(())
}

/// Keeps the protected paths read-only and the hidden ones unreadable (but for the exposed
/// directories, read-only), and returns how, with the paths to grant read and write access
/// below.
fn protect_paths(
    plan: &ConfinementPlan,
    hidden: &[PathBuf],
    exposed: &[Exposure],
    no_namespace: bool,
) -> Result<(PathProtection, Vec<PathBuf>, Vec<PathBuf>), SandboxError> {
    let everything = vec![PathBuf::from("/")];
    if plan.protected.is_empty() && hidden.is_empty() {
        return Ok((
            PathProtection::NotNeeded,
            everything,
            plan.writable_roots.clone(),
        ));
    }
    if !no_namespace {
        match namespace::isolate(&plan.protected, hidden, exposed) {
            Ok(kind) => {
                return Ok((
                    PathProtection::Namespace(kind),
                    everything,
                    plan.writable_roots.clone(),
                ));
            }
            Err(error) => {
                tracing::debug!(%error, "no mount namespace; protecting paths with landlock alone");
            }
        }
    }
    // Write grants include reading: they leave out the hidden paths as they leave out `.git`.
    let mut excluding_hidden = plan.clone();
    excluding_hidden.protected.extend(hidden.iter().cloned());
    let writable = match plan::fallback_write_grants(&excluding_hidden) {
        Ok(grants) => grants,
        Err(source) => return Err(SandboxError::ReadWritableRoot(source)),
    };
    let mut readable = match plan::grants_excluding(&everything, hidden) {
        Ok(grants) => grants,
        Err(source) => return Err(SandboxError::ReadAboveHidden(source)),
    };
    // No write grant reaches them: write grants leave out the hidden paths they lie in.
    readable.extend(exposed.iter().map(|exposure| exposure.source.clone()));
    Ok((PathProtection::LandlockOnly, readable, writable))
}

fn set_no_new_privs() -> Result<(), SandboxError> {
    // SAFETY: PR_SET_NO_NEW_PRIVS takes plain integer arguments and touches no memory.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(SandboxError::Syscall {
            call: "prctl(PR_SET_NO_NEW_PRIVS)",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}

#[allow(
    clippy::print_stderr,
    reason = "the helper's stderr is the command's stderr; this is how the user learns why \
              nothing ran"
)]
fn report(message: std::fmt::Arguments<'_>) {
    eprintln!("sandbox-exec: {message}");
}
