//! When the user must be asked: the approval policy applied to commands and patches.
//!
//! | policy | command | patch |
//! |---|---|---|
//! | `untrusted` | ask unless known to be safe (read-only commands such as `ls`, `cat`, `git status`) | always ask |
//! | `on-request` | run sandboxed without asking; ask when the model requests escalation | ask when a path is outside the writable roots |
//! | `never` | run sandboxed, never ask; escalation is refused | refuse paths outside the writable roots |
//! | `granular` | as `on-request`; with `sandbox_approval: false`, as `never` | as `on-request`; with `sandbox_approval: false`, as `never` |
//!
//! Under any policy but `never`, a command that fails because the sandbox blocked it may be
//! retried outside the sandbox, but only after the user approves that retry.
//! Approved commands run under the thread's sandbox unless the approval was for an
//! escalation; `danger-full-access` has no sandbox at all.
//!
//! Below a `danger-full-access` ceiling (`clients.max_sandbox`), nothing leaves the sandbox:
//! the model's request for escalation is refused without asking, no retry outside the sandbox
//! is offered, and a patch that would write beyond the ceiling is refused even where the
//! policy would ask, since no approval raises the ceiling.

use std::path::{Path, PathBuf};

use app_server_protocol::policy::{AskForApproval, SandboxMode, SandboxPolicy};

use crate::paths::resolve_lexically;

/// What to do with a command before running it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandAssessment {
    /// Run without asking.
    Run {
        /// Inside the sandbox.
        sandboxed: bool,
    },
    /// Ask first; on approval run as given.
    Ask {
        /// Inside the sandbox once approved.
        sandboxed: bool,
        /// Why the user is asked (shown in the request).
        reason: Option<String>,
    },
    /// Refuse without asking; the message goes to the model.
    Refuse(String),
}

/// What to do with a patch before writing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchAssessment {
    /// Write without asking.
    Apply,
    /// Ask first.
    Ask {
        /// Why the user is asked.
        reason: Option<String>,
    },
    /// Refuse without asking; the message goes to the model.
    Refuse(String),
}

/// Whether the policy has no sandbox to run in.
pub fn is_unsandboxed(sandbox: &SandboxPolicy) -> bool {
    matches!(
        sandbox,
        SandboxPolicy::DangerFullAccess | SandboxPolicy::ExternalSandbox { .. }
    )
}

/// Decides how a command may run.
///
/// `command` is the shell script the model asked for; `escalate` is its
/// `sandbox_permissions: "require_escalated"`; `approved_for_session` says the user already
/// accepted this exact command for the thread; `ceiling` is the operator's
/// `clients.max_sandbox`, below `danger-full-access` of which nothing runs unsandboxed.
pub fn assess_command(
    policy: &AskForApproval,
    sandbox: &SandboxPolicy,
    command: &str,
    escalate: bool,
    approved_for_session: bool,
    ceiling: SandboxMode,
) -> CommandAssessment {
    let unsandboxed = is_unsandboxed(sandbox);
    if ceiling != SandboxMode::DangerFullAccess && (escalate || unsandboxed) {
        return CommandAssessment::Refuse(format!(
            "exec_command failed: running outside the sandbox is not allowed on this server (clients.max_sandbox = \"{}\"); run the command inside the sandbox",
            mode_name(ceiling)
        ));
    }
    let sandboxed = !unsandboxed && !escalate;
    if approved_for_session {
        return CommandAssessment::Run { sandboxed };
    }
    match asking_policy(policy) {
        AskForApproval::Never | AskForApproval::Granular(_) => {
            if escalate && !unsandboxed {
                CommandAssessment::Refuse(format!(
                    "exec_command failed: running outside the sandbox needs the user's approval, and {}",
                    refusing_policy(policy)
                ))
            } else {
                CommandAssessment::Run {
                    sandboxed: !unsandboxed,
                }
            }
        }
        AskForApproval::Untrusted => {
            if !escalate && is_known_safe(command) {
                CommandAssessment::Run { sandboxed }
            } else {
                CommandAssessment::Ask {
                    sandboxed,
                    reason: None,
                }
            }
        }
        AskForApproval::OnRequest => {
            if escalate && !unsandboxed {
                CommandAssessment::Ask {
                    sandboxed: false,
                    reason: None,
                }
            } else {
                CommandAssessment::Run {
                    sandboxed: !unsandboxed,
                }
            }
        }
    }
}

/// Whether a command that failed in the sandbox may be offered for a retry outside it: not
/// under `never`, and not below a `danger-full-access` ceiling.
pub fn may_retry_unsandboxed(policy: &AskForApproval, ceiling: SandboxMode) -> bool {
    ceiling == SandboxMode::DangerFullAccess
        && !matches!(asking_policy(policy), AskForApproval::Never)
}

/// The mode as `config.toml` spells it.
fn mode_name(mode: SandboxMode) -> &'static str {
    match mode {
        SandboxMode::ReadOnly => "read-only",
        SandboxMode::WorkspaceWrite => "workspace-write",
        SandboxMode::DangerFullAccess => "danger-full-access",
    }
}

/// Why a question was refused, for the model.
fn refusing_policy(policy: &AskForApproval) -> &'static str {
    match policy {
        AskForApproval::Granular(_) => "the granular approval policy has `sandbox_approval: false`",
        _ => "the approval policy is `never`",
    }
}

/// The plain policy that decides when a command or a patch asks: `granular` asks as
/// `on-request` does while it allows sandbox approvals, and refuses as `never` does otherwise.
fn asking_policy(policy: &AskForApproval) -> AskForApproval {
    match policy {
        AskForApproval::Granular(config) if config.sandbox_approval => AskForApproval::OnRequest,
        AskForApproval::Granular(_) => AskForApproval::Never,
        other => *other,
    }
}

/// Whether a sandboxed command's failure looks like the sandbox's doing: the helper could not
/// confine (exit 126), or the output carries the errors Landlock and seccomp produce.
pub fn looks_sandbox_denied(exit_code: Option<i32>, output: &str) -> bool {
    let Some(code) = exit_code else {
        return false;
    };
    if code == 0 {
        return false;
    }
    const MARKERS: [&str; 4] = [
        "Permission denied",
        "Operation not permitted",
        "Read-only file system",
        "tandem sandbox",
    ];
    code == 126 || MARKERS.iter().any(|marker| output.contains(marker))
}

/// Decides how a patch touching `paths` (absolute) may be written.
///
/// `within_ceiling` says that every path lies where the operator's `clients.max_sandbox`
/// lets a client write ([`crate::access::ClientPolicy::may_write`]); a patch beyond it is
/// refused without asking.
pub fn assess_patch(
    policy: &AskForApproval,
    sandbox: &SandboxPolicy,
    cwd: &Path,
    paths: &[PathBuf],
    approved_for_session: bool,
    within_ceiling: bool,
) -> PatchAssessment {
    if !within_ceiling {
        return PatchAssessment::Refuse(
            "patch rejected: it writes where this server does not let a client write (clients.max_sandbox)"
                .to_string(),
        );
    }
    if approved_for_session {
        return PatchAssessment::Apply;
    }
    let writable = paths.iter().all(|path| is_writable(sandbox, cwd, path));
    match asking_policy(policy) {
        AskForApproval::Untrusted => PatchAssessment::Ask { reason: None },
        AskForApproval::Never | AskForApproval::Granular(_) => {
            if writable {
                PatchAssessment::Apply
            } else {
                PatchAssessment::Refuse(format!(
                    "patch rejected: it writes outside the writable roots, which needs the user's approval, and {}",
                    refusing_policy(policy)
                ))
            }
        }
        AskForApproval::OnRequest => {
            if writable {
                PatchAssessment::Apply
            } else {
                PatchAssessment::Ask {
                    reason: Some("the patch writes outside the writable roots".into()),
                }
            }
        }
    }
}

/// Whether `path` may be written without asking under `sandbox`: below a writable root
/// (the cwd and the configured roots for `workspace-write`) and not inside a `.git`
/// directory.
pub fn is_writable(sandbox: &SandboxPolicy, cwd: &Path, path: &Path) -> bool {
    match sandbox {
        SandboxPolicy::DangerFullAccess | SandboxPolicy::ExternalSandbox { .. } => true,
        SandboxPolicy::ReadOnly { .. } => false,
        SandboxPolicy::WorkspaceWrite { writable_roots, .. } => {
            let path = resolve_lexically(cwd, path);
            let mut roots = vec![resolve_lexically(cwd, Path::new(""))];
            roots.extend(
                writable_roots
                    .iter()
                    .flatten()
                    .map(|root| resolve_lexically(cwd, Path::new(root))),
            );
            roots.iter().any(|root| {
                path.strip_prefix(root).is_ok_and(|relative| {
                    !relative
                        .components()
                        .any(|component| component.as_os_str() == ".git")
                })
            })
        }
    }
}

/// Commands that only read, run without asking even under `untrusted`.
const SAFE_COMMANDS: [&str; 14] = [
    "cat", "cd", "echo", "false", "grep", "head", "ls", "nl", "pwd", "tail", "true", "wc", "which",
    "rg",
];

/// Whether every part of a shell script is a known read-only command: no redirections or
/// substitutions, and each `&&`/`||`/`;`/`|`-separated command is in [`SAFE_COMMANDS`] (or
/// is a read-only `git`, `find` or `sed -n`).
pub fn is_known_safe(script: &str) -> bool {
    if script.trim().is_empty() {
        return false;
    }
    if ['>', '<', '`', '\n'].iter().any(|c| script.contains(*c)) || script.contains("$(") {
        return false;
    }
    let normalized = script
        .replace("&&", ";")
        .replace("||", ";")
        .replace('|', ";");
    normalized.split(';').all(|part| {
        let Some(words) = shlex::split(part.trim()) else {
            return false;
        };
        is_safe_words(&words)
    })
}

fn is_safe_words(words: &[String]) -> bool {
    let Some(program) = words.first() else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    let args = &words[1..];
    match program {
        "git" => matches!(
            args.first().map(String::as_str),
            Some("status" | "log" | "diff" | "show" | "branch")
        ),
        "find" => !args.iter().any(|arg| {
            matches!(
                arg.as_str(),
                "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-delete"
                    | "-fls"
                    | "-fprint"
                    | "-fprint0"
                    | "-fprintf"
            )
        }),
        "sed" => args.first().is_some_and(|arg| arg == "-n") && !args.iter().any(|arg| arg == "-i"),
        "rg" => !args
            .iter()
            .any(|arg| arg.starts_with("--pre") || arg == "-z" || arg == "--search-zip"),
        other => SAFE_COMMANDS.contains(&other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: SandboxMode = SandboxMode::DangerFullAccess;

    fn workspace(roots: Vec<String>) -> SandboxPolicy {
        SandboxPolicy::WorkspaceWrite {
            writable_roots: Some(roots),
            network_access: None,
            exclude_tmpdir_env_var: None,
            exclude_slash_tmp: None,
        }
    }

    #[test]
    fn known_safe_commands() {
        for safe in [
            "ls -la",
            "cat README.md",
            "git status",
            "git log --oneline | head -5",
            "pwd && ls",
            "find . -name '*.rs'",
            "sed -n 1,10p file",
        ] {
            assert!(is_known_safe(safe), "{safe} should be safe");
        }
        for unsafe_command in [
            "touch x",
            "echo hi > file",
            "rm -rf /",
            "ls; rm x",
            "find . -delete",
            "git push",
            "sed -i s/a/b/ f",
            "cat $(which sh)",
            "uname -a",
            "",
        ] {
            assert!(
                !is_known_safe(unsafe_command),
                "{unsafe_command} should not be safe"
            );
        }
    }

    #[test]
    fn command_assessment_follows_the_policy_table() {
        let sandbox = workspace(Vec::new());
        let full = SandboxPolicy::DangerFullAccess;
        assert_eq!(
            assess_command(
                &AskForApproval::Untrusted,
                &sandbox,
                "touch x",
                false,
                false,
                FULL
            ),
            CommandAssessment::Ask {
                sandboxed: true,
                reason: None
            }
        );
        assert_eq!(
            assess_command(
                &AskForApproval::Untrusted,
                &sandbox,
                "ls",
                false,
                false,
                FULL
            ),
            CommandAssessment::Run { sandboxed: true }
        );
        assert_eq!(
            assess_command(
                &AskForApproval::Untrusted,
                &sandbox,
                "touch x",
                false,
                true,
                FULL
            ),
            CommandAssessment::Run { sandboxed: true }
        );
        assert_eq!(
            assess_command(
                &AskForApproval::OnRequest,
                &sandbox,
                "touch x",
                false,
                false,
                FULL
            ),
            CommandAssessment::Run { sandboxed: true }
        );
        assert_eq!(
            assess_command(
                &AskForApproval::OnRequest,
                &sandbox,
                "touch x",
                true,
                false,
                FULL
            ),
            CommandAssessment::Ask {
                sandboxed: false,
                reason: None
            }
        );
        assert_eq!(
            assess_command(
                &AskForApproval::OnRequest,
                &full,
                "touch x",
                true,
                false,
                FULL
            ),
            CommandAssessment::Run { sandboxed: false }
        );
        assert!(matches!(
            assess_command(
                &AskForApproval::Never,
                &sandbox,
                "touch x",
                true,
                false,
                FULL
            ),
            CommandAssessment::Refuse(_)
        ));
        assert_eq!(
            assess_command(
                &AskForApproval::Never,
                &sandbox,
                "touch x",
                false,
                false,
                FULL
            ),
            CommandAssessment::Run { sandboxed: true }
        );
    }

    #[test]
    fn patch_assessment_checks_writable_roots() {
        let cwd = Path::new("/work/project");
        let sandbox = workspace(vec!["/tmp/extra".into()]);
        let inside = vec![PathBuf::from("/work/project/src/a.rs")];
        let git = vec![PathBuf::from("/work/project/.git/config")];
        let outside = vec![PathBuf::from("/etc/passwd")];
        let escape = vec![PathBuf::from("/work/project/../other/x")];
        let extra = vec![PathBuf::from("/tmp/extra/y")];
        let on_request = AskForApproval::OnRequest;
        assert_eq!(
            assess_patch(&on_request, &sandbox, cwd, &inside, false, true),
            PatchAssessment::Apply
        );
        assert_eq!(
            assess_patch(&on_request, &sandbox, cwd, &extra, false, true),
            PatchAssessment::Apply
        );
        for paths in [&git, &outside, &escape] {
            assert!(matches!(
                assess_patch(&on_request, &sandbox, cwd, paths, false, true),
                PatchAssessment::Ask { .. }
            ));
            assert!(matches!(
                assess_patch(&AskForApproval::Never, &sandbox, cwd, paths, false, true),
                PatchAssessment::Refuse(_)
            ));
        }
        assert!(matches!(
            assess_patch(
                &AskForApproval::Untrusted,
                &sandbox,
                cwd,
                &inside,
                false,
                true
            ),
            PatchAssessment::Ask { .. }
        ));
        assert!(matches!(
            assess_patch(
                &on_request,
                &SandboxPolicy::ReadOnly {
                    network_access: None
                },
                cwd,
                &inside,
                false,
                true
            ),
            PatchAssessment::Ask { .. }
        ));
        assert_eq!(
            assess_patch(
                &AskForApproval::Untrusted,
                &sandbox,
                cwd,
                &inside,
                true,
                true
            ),
            PatchAssessment::Apply
        );
    }

    #[test]
    fn below_a_full_ceiling_nothing_leaves_the_sandbox() {
        let sandbox = workspace(Vec::new());
        let ceiling = SandboxMode::WorkspaceWrite;
        for policy in [
            AskForApproval::OnRequest,
            AskForApproval::Untrusted,
            AskForApproval::Never,
        ] {
            // The model's escalation is refused without asking, even if approved before.
            for approved in [false, true] {
                let CommandAssessment::Refuse(message) =
                    assess_command(&policy, &sandbox, "touch x", true, approved, ceiling)
                else {
                    panic!("escalation under {policy:?} was not refused");
                };
                assert!(message.contains("clients.max_sandbox"), "{message}");
            }
            assert!(!may_retry_unsandboxed(&policy, ceiling));
        }
        // A thread without a sandbox cannot run anything under such a ceiling.
        assert!(matches!(
            assess_command(
                &AskForApproval::Never,
                &SandboxPolicy::DangerFullAccess,
                "ls",
                false,
                false,
                ceiling
            ),
            CommandAssessment::Refuse(_)
        ));
        // Sandboxed commands are unaffected.
        assert_eq!(
            assess_command(
                &AskForApproval::OnRequest,
                &sandbox,
                "touch x",
                false,
                false,
                ceiling
            ),
            CommandAssessment::Run { sandboxed: true }
        );
        assert!(may_retry_unsandboxed(&AskForApproval::OnRequest, FULL));
        // A patch beyond the ceiling is refused where the policy would have asked.
        let outside = vec![PathBuf::from("/etc/passwd")];
        assert!(matches!(
            assess_patch(
                &AskForApproval::OnRequest,
                &sandbox,
                Path::new("/work"),
                &outside,
                true,
                false
            ),
            PatchAssessment::Refuse(_)
        ));
    }

    #[test]
    fn sandbox_denials_are_recognised() {
        assert!(looks_sandbox_denied(
            Some(1),
            "touch: cannot touch 'x': Permission denied"
        ));
        assert!(looks_sandbox_denied(Some(126), ""));
        assert!(!looks_sandbox_denied(Some(0), "Permission denied"));
        assert!(!looks_sandbox_denied(Some(1), "no such file"));
        assert!(!looks_sandbox_denied(None, "Permission denied"));
    }
}
