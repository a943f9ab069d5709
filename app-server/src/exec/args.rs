//! The command line of `tandem exec`: the reference's `codex exec` flags, so that the official
//! SDKs, which spawn `codex exec --experimental-json`, run it unchanged.
//!
//! Flags shared with `resume` are `global`, because the SDKs place some of them (`--image`)
//! after `resume <THREAD_ID>` and others before it. Flags the reference accepts and Tandem does
//! not implement are accepted, hidden, and ignored with a warning (`ignored_flags`), so that a
//! newer SDK passing them does not break.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

/// Arguments of `tandem exec`.
#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = false,
    subcommand_negates_reqs = true
)]
pub struct ExecArgs {
    /// What to ask. Absent or `-`: read from stdin.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,

    #[command(subcommand)]
    pub command: Option<ExecCommand>,

    #[command(flatten)]
    pub options: ExecOptions,

    #[command(flatten)]
    pub config: crate::cli::ConfigFlags,
}

/// Subcommands of `tandem exec`.
#[derive(Debug, Subcommand)]
pub enum ExecCommand {
    /// Run the next turn on a stored thread (by id, or the latest with `--last`).
    Resume(ResumeArgs),
}

/// Arguments of `tandem exec resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The thread to resume (with `--last`, this is the prompt).
    #[arg(value_name = "THREAD_ID")]
    pub thread_id: Option<String>,
    /// What to ask. Absent or `-`: read from stdin.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,
    /// Resume the most recently updated thread of the working directory.
    #[arg(long)]
    pub last: bool,
    /// With `--last`: the most recent thread of any working directory.
    #[arg(long)]
    pub all: bool,
}

/// The flags of `tandem exec` and `tandem exec resume`.
#[derive(Debug, Args)]
pub struct ExecOptions {
    /// Print one JSON event per line on stdout (the events of `codex exec --json`).
    #[arg(long, alias = "experimental-json", global = true)]
    pub json: bool,
    /// The model of the thread.
    #[arg(long, short = 'm', value_name = "MODEL", global = true)]
    pub model: Option<String>,
    /// The sandbox of the thread's commands.
    #[arg(
        long,
        short = 's',
        value_enum,
        value_name = "SANDBOX_MODE",
        global = true
    )]
    pub sandbox: Option<SandboxArg>,
    /// The working directory of the thread (default: the current directory).
    #[arg(long = "cd", short = 'C', value_name = "DIR", global = true)]
    pub cd: Option<PathBuf>,
    /// Another writable directory besides the working directory (repeatable).
    #[arg(long = "add-dir", value_name = "DIR", global = true)]
    pub add_dir: Vec<PathBuf>,
    /// Run outside a git repository too.
    #[arg(long, global = true)]
    pub skip_git_repo_check: bool,
    /// A JSON Schema file the final message must conform to.
    #[arg(long, value_name = "FILE", global = true)]
    pub output_schema: Option<PathBuf>,
    /// An image to attach to the prompt (repeatable, or comma-separated).
    #[arg(
        long,
        short = 'i',
        value_name = "FILE",
        value_delimiter = ',',
        global = true
    )]
    pub image: Vec<PathBuf>,
    /// Write the final message to this file when the turn ends.
    #[arg(long, short = 'o', value_name = "FILE", global = true)]
    pub output_last_message: Option<PathBuf>,
    /// Whether the transcript on stderr uses colors (Tandem writes it without colors).
    #[arg(long, value_enum, default_value = "auto", global = true)]
    pub color: ColorArg,
    /// The config profile (the same as `-c profile=NAME`).
    #[arg(long, short = 'p', value_name = "PROFILE", global = true)]
    pub profile: Option<String>,

    // Flags of the reference that Tandem accepts and ignores (see `ignored_flags`).
    #[arg(long, global = true, hide = true)]
    pub oss: bool,
    #[arg(long, value_name = "OSS_PROVIDER", global = true, hide = true)]
    pub local_provider: Option<String>,
    #[arg(long, global = true, hide = true)]
    pub approve_for_me: bool,
    #[arg(long, global = true, hide = true)]
    pub dangerously_bypass_approvals_and_sandbox: bool,
    #[arg(long, global = true, hide = true)]
    pub dangerously_bypass_hook_trust: bool,
    #[arg(long, global = true, hide = true)]
    pub worktree: bool,
    #[arg(long, value_name = "SOURCE", global = true, hide = true)]
    pub thread_source: Option<String>,
    #[arg(long, value_name = "PROGRAM", global = true, hide = true)]
    pub cyber_access_program: Option<String>,
    #[arg(long, global = true, hide = true)]
    pub trust: bool,
    #[arg(long, global = true, hide = true)]
    pub ephemeral: bool,
    #[arg(long, global = true, hide = true)]
    pub ignore_user_config: bool,
    #[arg(long, global = true, hide = true)]
    pub ignore_rules: bool,
}

/// `--sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxArg {
    /// Commands may read files but not write them, and have no network.
    ReadOnly,
    /// Commands may write in the working directory and the `--add-dir` directories.
    WorkspaceWrite,
    /// No sandbox.
    DangerFullAccess,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// Colors.
    Always,
    /// No colors.
    Never,
    /// Colors on a terminal.
    Auto,
}

impl ExecOptions {
    /// The reference's flags that were given and that Tandem ignores, by name.
    pub fn ignored_flags(&self) -> Vec<&'static str> {
        let given = [
            (self.oss, "--oss"),
            (self.local_provider.is_some(), "--local-provider"),
            (self.approve_for_me, "--approve-for-me"),
            (
                self.dangerously_bypass_approvals_and_sandbox,
                "--dangerously-bypass-approvals-and-sandbox",
            ),
            (
                self.dangerously_bypass_hook_trust,
                "--dangerously-bypass-hook-trust",
            ),
            (self.worktree, "--worktree"),
            (self.thread_source.is_some(), "--thread-source"),
            (
                self.cyber_access_program.is_some(),
                "--cyber-access-program",
            ),
            (self.trust, "--trust"),
            (self.ephemeral, "--ephemeral"),
            (self.ignore_user_config, "--ignore-user-config"),
            (self.ignore_rules, "--ignore-rules"),
        ];
        given
            .into_iter()
            .filter_map(|(present, name)| present.then_some(name))
            .collect()
    }
}
