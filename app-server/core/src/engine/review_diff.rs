//! The changes a `review/start` turn shows the model, collected with git before the turn
//! starts.
//!
//! Git runs in the thread's cwd under the thread's sandbox, checked against the operator's
//! `clients.max_sandbox` (as a model's command is), unable to read `$TANDEM_HOME`, with the
//! environment `[shell_environment_policy]` builds and no pager, external diff driver, text
//! conversion or file-system monitor, so that a repository's own configuration runs nothing.
//! A branch or commit name never reaches git as an option. What git prints is untrusted: each
//! command has a timeout and an output cap, and the diff sent to the model is cut at
//! [`DIFF_CAP`], the prompt saying so.

use std::path::PathBuf;
use std::time::Duration;

use app_server_protocol::policy::SandboxPolicy;
use app_server_protocol::review::ReviewTarget;

use crate::engine::{EngineError, EngineInner};
use crate::tools::exec::environment::command_environment;
use crate::tools::exec::process::{self, SpawnSpec};
use crate::tools::exec::run::{self, RunOptions};

/// Most bytes of diff sent to the model.
pub(super) const DIFF_CAP: usize = 256 * 1024;
/// How long one git command may run.
const GIT_TIMEOUT: Duration = Duration::from_secs(30);
/// Most untracked files whose content is shown (each as a diff against nothing).
const MAX_UNTRACKED_FILES: usize = 200;

/// The diff of a review, as the model is shown it.
#[derive(Debug, Clone, Default)]
pub(super) struct CollectedDiff {
    /// The diff text, at most [`DIFF_CAP`] bytes.
    pub text: String,
    /// How many bytes of diff were left out, when it was cut.
    pub omitted_bytes: usize,
    /// The git commands that produced it, for the prompt.
    pub commands: Vec<String>,
}

/// Where and how git runs for one review.
pub(super) struct Git<'a> {
    pub engine: &'a EngineInner,
    pub cwd: PathBuf,
    pub sandbox: SandboxPolicy,
}

impl Git<'_> {
    /// Collects the changes `target` names; `None` for custom instructions, which name none.
    pub(super) async fn collect(
        &self,
        target: &ReviewTarget,
    ) -> Result<Option<CollectedDiff>, EngineError> {
        let mut diff = DiffBuilder::default();
        match target {
            ReviewTarget::Custom { .. } => return Ok(None),
            ReviewTarget::UncommittedChanges => {
                // Staged and unstaged changes against HEAD; in a repository without commits,
                // against the empty tree, so that everything shows as new.
                if self
                    .diff_into(&mut diff, &["diff", "HEAD", "--"])
                    .await
                    .is_err()
                {
                    let empty_tree = self
                        .output(&["hash-object", "-t", "tree", "/dev/null"])
                        .await?;
                    self.diff_into(&mut diff, &["diff", empty_tree.trim(), "--"])
                        .await?;
                }
                let untracked = self
                    .output(&["ls-files", "--others", "--exclude-standard", "-z"])
                    .await?;
                for path in untracked
                    .split('\0')
                    .filter(|path| !path.is_empty())
                    .take(MAX_UNTRACKED_FILES)
                {
                    if diff.full() {
                        break;
                    }
                    // `--no-index` exits with 1 when the files differ, as they always do here.
                    self.diff_into(&mut diff, &["diff", "--no-index", "--", "/dev/null", path])
                        .await?;
                }
            }
            ReviewTarget::BaseBranch { branch } => {
                // What would merge into the branch as its remote has it, when it tracks one;
                // else into the local branch.
                let upstream = format!("{branch}@{{upstream}}");
                let merge_base = match self
                    .output(&["merge-base", "--end-of-options", "HEAD", &upstream])
                    .await
                {
                    Ok(merge_base) => merge_base,
                    Err(_) => self
                        .output(&["merge-base", "--end-of-options", "HEAD", branch])
                        .await
                        .map_err(|error| {
                            EngineError::InvalidRequest(format!(
                                "cannot find where HEAD left branch `{branch}`: {}",
                                error_detail(&error)
                            ))
                        })?,
                };
                self.diff_into(&mut diff, &["diff", merge_base.trim(), "--"])
                    .await?;
            }
            ReviewTarget::Commit { sha, .. } => {
                let commit = format!("{sha}^{{commit}}");
                let resolved = self
                    .output(&["rev-parse", "--verify", "--end-of-options", &commit])
                    .await
                    .map_err(|_| EngineError::InvalidRequest(format!("unknown commit: {sha}")))?;
                self.diff_into(
                    &mut diff,
                    &["show", "--format=fuller", "--patch", resolved.trim(), "--"],
                )
                .await?;
            }
        }
        Ok(Some(diff.finish()))
    }

    /// Runs a diff-producing git command and appends what it printed.
    async fn diff_into(&self, diff: &mut DiffBuilder, args: &[&str]) -> Result<(), EngineError> {
        let (code, stdout, stderr, cut) = self.run(&diff_args(args), diff.room() + 1).await?;
        // `diff --no-index` exits with 1 when there are differences.
        let no_index = args.contains(&"--no-index");
        if code != 0 && !(no_index && code == 1) {
            return Err(EngineError::InvalidRequest(format!(
                "cannot collect the changes to review: git {} failed: {}",
                args.join(" "),
                first_line(&stderr)
            )));
        }
        diff.commands.push(format!("git {}", args.join(" ")));
        diff.push(&stdout, cut);
        Ok(())
    }

    /// Runs a git command and returns its standard output; an error carries its standard error.
    async fn output(&self, args: &[&str]) -> Result<String, EngineError> {
        let (code, stdout, stderr, _) = self.run(args, 64 * 1024).await?;
        if code != 0 {
            return Err(EngineError::InvalidRequest(format!(
                "cannot collect the changes to review: git {} failed: {}",
                args.join(" "),
                first_line(&stderr)
            )));
        }
        Ok(stdout)
    }

    /// Runs `git ARGS` under the thread's sandbox with at most `cap` bytes of each stream:
    /// exit code, standard output, standard error and whether the output was cut.
    async fn run(
        &self,
        args: &[&str],
        cap: usize,
    ) -> Result<(i32, String, String, bool), EngineError> {
        // The repository's configuration must not run programs: no monitor, no pager.
        let mut argv: Vec<String> = [
            "git",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.quotePath=false",
            "--no-pager",
        ]
        .iter()
        .map(|arg| arg.to_string())
        .collect();
        argv.extend(args.iter().map(|arg| arg.to_string()));
        let refused = |error: String| {
            EngineError::InvalidRequest(format!("cannot collect the changes to review: {error}"))
        };
        self.engine
            .access
            .check_sandbox(&self.sandbox, &self.cwd)
            .map_err(|error| refused(error.to_string()))?;
        let concealed = crate::sandbox::Concealment::tandem_home(&self.engine.config().home);
        let wrapped = crate::sandbox::wrap_command(&self.sandbox, &self.cwd, &concealed, &argv)
            .map_err(|error| refused(format!("failed to sandbox git: {error}")))?;
        let environment = command_environment(
            &self.engine.config().shell_environment_policy,
            &[
                ("PAGER", "cat"),
                ("GIT_PAGER", "cat"),
                ("GIT_OPTIONAL_LOCKS", "0"),
                ("GIT_TERMINAL_PROMPT", "0"),
                ("GIT_EXTERNAL_DIFF", ""),
            ]
            .into_iter()
            .map(|(key, value)| (key.to_string(), Some(value.to_string())))
            .collect(),
        );
        let process = process::spawn(SpawnSpec {
            argv: wrapped,
            cwd: self.cwd.clone(),
            environment,
            stdin: false,
            tty: None,
        })
        .map_err(|error| refused(format!("cannot run git: {error}")))?;
        let result = run::run(
            process,
            RunOptions {
                timeout: Some(GIT_TIMEOUT),
                output_cap: Some(cap),
                on_chunk: None,
                buffer_output: true,
                // A server shutting down stops git at once.
                cancel: self.engine.shutdown.child_token(),
            },
        )
        .await;
        if result.timed_out {
            return Err(refused(format!(
                "git {} took longer than {} s",
                args.join(" "),
                GIT_TIMEOUT.as_secs()
            )));
        }
        Ok((
            result.exit_code,
            String::from_utf8_lossy(&result.stdout).into_owned(),
            String::from_utf8_lossy(&result.stderr).into_owned(),
            result.cap_reached,
        ))
    }
}

/// The diff as it grows, never beyond [`DIFF_CAP`].
#[derive(Default)]
struct DiffBuilder {
    text: String,
    omitted_bytes: usize,
    commands: Vec<String>,
}

impl DiffBuilder {
    fn room(&self) -> usize {
        DIFF_CAP - self.text.len()
    }

    fn full(&self) -> bool {
        self.omitted_bytes > 0 || self.room() == 0
    }

    /// Appends `text`, cut (on a character boundary) where the cap is reached; `cut` says
    /// the command printed more than was read.
    fn push(&mut self, text: &str, cut: bool) {
        let room = self.room();
        if text.len() <= room {
            self.text.push_str(text);
        } else {
            let end = crate::text::floor_char_boundary(text, room);
            self.text.push_str(&text[..end]);
            self.omitted_bytes += text.len() - end;
        }
        if cut {
            // The exact size of what git did not hand over is unknown; at least one byte.
            self.omitted_bytes = self.omitted_bytes.max(1);
        }
    }

    fn finish(self) -> CollectedDiff {
        CollectedDiff {
            text: self.text,
            omitted_bytes: self.omitted_bytes,
            commands: self.commands,
        }
    }
}

/// `git diff`/`git show` arguments with every program a repository could configure turned off.
fn diff_args<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut full = Vec::with_capacity(args.len() + 4);
    full.push(args[0]);
    full.extend(["--no-color", "--no-ext-diff", "--no-textconv"]);
    full.extend(&args[1..]);
    full
}

fn first_line(text: &str) -> &str {
    let line = text.lines().next().unwrap_or("").trim();
    if line.is_empty() {
        "no error message"
    } else {
        line
    }
}

fn error_detail(error: &EngineError) -> String {
    let text = error.to_string();
    match text.rsplit_once(" failed: ") {
        Some((_, detail)) => detail.to_string(),
        None => text,
    }
}
