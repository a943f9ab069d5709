//! The `tandem` command line: the app-server, binding generators and (later) the MCP adapter.

#![deny(clippy::print_stdout, clippy::print_stderr)]
// The engine modules are being wired into the server; until then parts are unused.
#![allow(dead_code, unused_imports, reason = "modules land before the server that uses them")]

mod cli;
mod codegen;
mod config;
mod model;
mod store;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{AppServerCommand, Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::AppServer(app_server) => match app_server.command {
            Some(AppServerCommand::GenerateTs(args)) => codegen::generate_ts(&args),
            Some(AppServerCommand::GenerateJsonSchema(args)) => {
                codegen::generate_json_schema(&args)
            }
            None => app_server_skeleton(),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report_error(&error);
            ExitCode::FAILURE
        }
    }
}

#[allow(
    clippy::print_stderr,
    reason = "the CLI reports fatal errors on stderr"
)]
fn report_error(error: &anyhow::Error) {
    eprintln!("tandem: error: {error:#}");
}

fn app_server_skeleton() -> anyhow::Result<()> {
    Ok(())
}
