//! The Linux sandbox: a helper process (`tandem sandbox-exec`, hidden) that applies Landlock
//! and seccomp to itself and then execs the command.

/// Arguments of the hidden `tandem sandbox-exec` subcommand.
#[derive(Debug, clap::Args)]
pub struct SandboxExecArgs {
    /// The command to run.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Runs the sandbox helper: confine this process, then exec the command. Returns only on error.
pub fn run_sandbox_exec(_args: &SandboxExecArgs) -> anyhow::Result<()> {
    anyhow::bail!("the sandbox is not built yet")
}
