//! Wrapping a command line in a shell, and showing an argv as one line.

#[cfg(test)]
mod tests;

/// The shell used when neither the model nor `$SHELL` names one.
pub const FALLBACK_SHELL: &str = "/bin/bash";

/// The argv that runs `cmd` through a shell: `[shell, "-lc" | "-c", cmd]`.
///
/// `shell` defaults to [`default_shell`]; `login` asks for a login shell, so that the user's
/// profile sets up `PATH` and friends as in their terminal.
pub fn shell_argv(cmd: &str, shell: Option<&str>, login: bool) -> Vec<String> {
    let shell = match shell {
        Some(shell) if !shell.is_empty() => shell.to_owned(),
        _ => default_shell(),
    };
    let flag = if login { "-lc" } else { "-c" };
    vec![shell, flag.to_owned(), cmd.to_owned()]
}

/// The user's shell: `$SHELL` when it is set and not empty, else [`FALLBACK_SHELL`].
pub fn default_shell() -> String {
    match std::env::var("SHELL") {
        Ok(shell) if !shell.is_empty() => shell,
        _ => FALLBACK_SHELL.to_owned(),
    }
}

/// Joins argv into one shell-quoted line, as `commandExecution.command` shows it:
/// `/bin/bash -c 'for i in 1 2 3; do echo line$i; done'`.
///
/// An argument with a NUL byte cannot be quoted; the arguments are then joined with spaces.
pub fn join_command(argv: &[String]) -> String {
    match shlex::try_join(argv.iter().map(String::as_str)) {
        Ok(line) => line,
        Err(_) => argv.join(" "),
    }
}
