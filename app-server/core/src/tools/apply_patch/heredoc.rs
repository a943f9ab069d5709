//! Recognising `apply_patch` invoked through the shell tool (`model-wire.md` §2.3, form 3).
//!
//! Models without an `apply_patch` tool run `apply_patch <<'EOF' … EOF` through `exec_command`.
//! There is no such binary, so the engine intercepts these commands and treats them as a file
//! change. Recognition is deliberately narrow, mirroring Codex: only a command that is nothing
//! but the invocation (optionally after `cd <dir> &&`, optionally wrapped in `bash -lc`)
//! matches; anything else is a real shell command and runs as one.

/// The patch text and working directory extracted from a shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeredocPatch {
    /// The directory of a leading `cd <dir> &&`, as written (relative to the command's cwd).
    pub workdir: Option<String>,
    /// The patch text, still to be parsed with `parse_patch`.
    pub patch: String,
}

const APPLY_PATCH_COMMANDS: [&str; 2] = ["apply_patch", "applypatch"];
const SHELLS: [&str; 3] = ["bash", "sh", "zsh"];
const SHELL_SCRIPT_FLAGS: [&str; 2] = ["-c", "-lc"];

/// Returns the patch when `command` (a shell script string) is an `apply_patch` invocation:
///
/// * `apply_patch <<'EOF'` … `EOF` (any delimiter, quoted or not; `applypatch` too),
/// * `apply_patch '<patch text>'` with the patch as its single argument,
/// * either of them preceded by `cd <dir> &&`,
/// * any of the above as the script of `bash|sh|zsh -c|-lc '<script>'`.
///
/// Anything else, including trailing commands after the heredoc, returns `None`.
pub fn parse_heredoc_invocation(command: &str) -> Option<HeredocPatch> {
    if let Some(invocation) = heredoc_form(command) {
        return Some(invocation);
    }
    let words = shlex::split(command)?;
    if let [shell, flag, script] = words.as_slice()
        && is_shell(shell)
        && SHELL_SCRIPT_FLAGS.contains(&flag.as_str())
    {
        // The script is itself a command line; it may not be wrapped again.
        return heredoc_form(script).or_else(|| argument_form(&shlex::split(script)?));
    }
    argument_form(&words)
}

/// `[cd <dir> &&] apply_patch <<DELIM\n…\nDELIM`, with nothing but blank lines after.
fn heredoc_form(script: &str) -> Option<HeredocPatch> {
    let script = script.trim_start();
    let (first_line, rest) = script.split_once('\n').unwrap_or((script, ""));
    let words = shlex::split(first_line)?;
    let (workdir, words) = split_cd_prefix(&words)?;
    let (redirect, delimiter) = match words {
        [command, redirect] if is_apply_patch(command) => (redirect.as_str(), None),
        [command, redirect, delimiter]
            if is_apply_patch(command) && (redirect == "<<" || redirect == "<<-") =>
        {
            (redirect.as_str(), Some(delimiter.as_str()))
        }
        _ => return None,
    };
    let (strip_tabs, delimiter) = match delimiter {
        Some(delimiter) => (redirect == "<<-", delimiter),
        None => {
            let delimiter = redirect.strip_prefix("<<")?;
            match delimiter.strip_prefix('-') {
                Some(delimiter) => (true, delimiter),
                None => (false, delimiter),
            }
        }
    };
    if delimiter.is_empty() || delimiter.starts_with('<') {
        return None;
    }
    let mut body = Vec::new();
    let mut lines = rest.split('\n');
    let mut terminated = false;
    for line in lines.by_ref() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = if strip_tabs {
            line.trim_start_matches('\t')
        } else {
            line
        };
        if line.trim_end() == delimiter {
            terminated = true;
            break;
        }
        body.push(line);
    }
    // A missing terminator or a command after it means this is not a plain invocation.
    if !terminated || lines.any(|line| !line.trim().is_empty()) {
        return None;
    }
    let mut patch = body.join("\n");
    patch.push('\n');
    Some(HeredocPatch { workdir, patch })
}

/// `[cd <dir> &&] apply_patch '<patch>'` as shell words.
fn argument_form(words: &[String]) -> Option<HeredocPatch> {
    let (workdir, words) = split_cd_prefix(words)?;
    match words {
        [command, patch] if is_apply_patch(command) => Some(HeredocPatch {
            workdir,
            patch: patch.clone(),
        }),
        _ => None,
    }
}

/// Splits off a leading `cd <dir> &&`. Returns `None` when the words start with `cd` in any
/// other shape (`cd a b`, `cd a;`, `cd a ||`), which is then not an invocation we intercept.
fn split_cd_prefix(words: &[String]) -> Option<(Option<String>, &[String])> {
    match words {
        [cd, directory, and, rest @ ..] if cd == "cd" && and == "&&" => {
            Some((Some(directory.clone()), rest))
        }
        [cd, ..] if cd == "cd" => None,
        _ => Some((None, words)),
    }
}

fn is_apply_patch(word: &str) -> bool {
    APPLY_PATCH_COMMANDS.contains(&word)
}

/// `bash`, `/bin/bash`, `/usr/bin/env`-less absolute shells and the like.
fn is_shell(word: &str) -> bool {
    let name = word.rsplit('/').next().unwrap_or(word);
    SHELLS.contains(&name)
}
