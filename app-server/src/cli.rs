//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Tandem: a local agent server for IDEs, speaking the app-server protocol over stdio.
#[derive(Debug, Parser)]
#[command(name = "tandem", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Override a config value: `-c dotted.key=<TOML value>` (repeatable; before or after the
    /// subcommand). Example: `-c model_provider="demo"`.
    #[arg(short = 'c', long = "config", value_name = "KEY=VALUE", global = true)]
    pub config_overrides: Vec<String>,

    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the app-server protocol (JSONL over stdio), or generate client bindings.
    AppServer(AppServerArgs),
    /// Run one prompt through a spawned app-server and print the turn, asking you to approve
    /// commands and file changes. `--demo` uses the offline scripted demo provider.
    Run(RunArgs),
    /// Internal: run a command inside the sandbox (used by the server itself).
    #[command(hide = true)]
    SandboxExec(crate::sandbox::SandboxExecArgs),
}

/// Arguments of `tandem run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// What to ask.
    #[arg(default_value = "Show me what you can do.")]
    pub prompt: String,
    /// Use the offline scripted demo provider (no network, no key).
    #[arg(long)]
    pub demo: bool,
    /// Approve every command and file change without asking.
    #[arg(long, conflicts_with = "no")]
    pub yes: bool,
    /// Decline every command and file change without asking (the default without a terminal).
    #[arg(long)]
    pub no: bool,
    /// Approval policy for the thread: untrusted, on-request or never.
    #[arg(long, value_name = "POLICY")]
    pub approval_policy: Option<String>,
    /// Sandbox for the thread: read-only, workspace-write or danger-full-access.
    #[arg(long, value_name = "MODE")]
    pub sandbox: Option<String>,
    /// Plan mode: the agent may ask you questions.
    #[arg(long)]
    pub plan: bool,
}

/// Arguments of `tandem app-server`.
#[derive(Debug, Args)]
pub struct AppServerArgs {
    /// Where to listen; only `stdio://` is supported.
    #[arg(long, value_name = "URL", default_value = "stdio://")]
    pub listen: String,

    #[command(subcommand)]
    pub command: Option<AppServerCommand>,
}

/// Subcommands of `tandem app-server`.
#[derive(Debug, Subcommand)]
pub enum AppServerCommand {
    /// Write TypeScript bindings: one `.ts` file per type plus `index.ts`.
    GenerateTs(GenerateArgs),
    /// Write JSON Schemas: one file per type plus a bundle with every definition.
    GenerateJsonSchema(GenerateArgs),
}

/// Arguments of the binding generators.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Output directory (created if missing; existing generated files are replaced).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: PathBuf,

    /// Include experimental methods, fields and types.
    #[arg(long)]
    pub experimental: bool,
}
