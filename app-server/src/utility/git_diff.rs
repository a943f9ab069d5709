//! `gitDiffToRemote`: the working tree against its remote-tracking commit.
//!
//! Everything goes through the `git` CLI rather than a library, so the result matches what the user's own `git`
//! would print, including their attributes and excludes.
//! Every command runs at the repository's top level (so paths are repository-relative even when `cwd` is a
//! subdirectory) with prompts, pagers, colours, external diff drivers and optional index locks turned off.

use std::{
    ffi::{OsStr, OsString},
    os::unix::ffi::{OsStrExt, OsStringExt},
    path::{Path, PathBuf},
    process::{ExitStatus, Stdio},
};

use app_server_protocol::utility::GitDiffToRemoteResponse;
use futures::{StreamExt, TryStreamExt};
use tokio::process::Command;

/// How many `git diff --no-index` processes run at once for untracked files.
const UNTRACKED_DIFF_CONCURRENCY: usize = 8;

/// Flags shared by every diff so that user configuration cannot change the format a client has to apply.
const DIFF_FLAGS: &[&str] = &[
    "diff",
    "--binary",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",
    "--dst-prefix=b/",
];

/// `gitDiffToRemote` failed; the message is the one Codex sends, and the cause is kept as the error's source.
#[derive(Debug, thiserror::Error)]
#[error("failed to compute git diff to remote for cwd: {cwd:?}")]
pub struct GitDiffError {
    cwd: PathBuf,
    #[source]
    cause: GitFailure,
}

/// Why a diff could not be computed.
#[derive(Debug, thiserror::Error)]
enum GitFailure {
    #[error("could not run `git {args}`")]
    Spawn {
        args: String,
        #[source]
        source: std::io::Error,
    },
    #[error("`git {args}` failed with {status}: {stderr}")]
    Exit {
        args: String,
        status: ExitStatus,
        stderr: String,
    },
    #[error("no upstream branch and no remote-tracking default branch")]
    NoRemote,
    #[error("`git merge-base` printed no commit")]
    NoMergeBase,
}

/// Diffs the repository containing `cwd` against the merge-base of `HEAD` and its remote-tracking branch.
///
/// The remote-tracking branch is the current branch's upstream; failing that, the default branch of a remote
/// (`refs/remotes/<remote>/HEAD`, else `<remote>/main`, else `<remote>/master`), trying `origin` first and then the
/// other remotes in `git remote` order.
/// `diff` is `git diff --binary <sha>` (committed, staged and unstaged changes to tracked files) followed by one
/// new-file diff per untracked, non-ignored file, so `git apply` on a checkout of `sha` reproduces the tree.
/// Bytes that are not UTF-8 are replaced, since the wire carries a string.
pub async fn git_diff_to_remote(cwd: &Path) -> Result<GitDiffToRemoteResponse, GitDiffError> {
    match diff_to_remote(cwd).await {
        Ok(response) => Ok(response),
        Err(cause) => {
            tracing::debug!(cwd = %cwd.display(), error = %cause, "gitDiffToRemote failed");
            Err(GitDiffError {
                cwd: cwd.to_owned(),
                cause,
            })
        }
    }
}

async fn diff_to_remote(cwd: &Path) -> Result<GitDiffToRemoteResponse, GitFailure> {
    let toplevel = git(cwd, ["rev-parse", "--show-toplevel"]).await?;
    let toplevel = PathBuf::from(OsString::from_vec(trim_line(toplevel)));

    let Some(remote_ref) = remote_tracking_ref(&toplevel).await? else {
        return Err(GitFailure::NoRemote);
    };
    let sha = git(&toplevel, ["merge-base", "HEAD", remote_ref.as_str()]).await?;
    let sha = String::from_utf8_lossy(&trim_line(sha)).into_owned();
    if sha.is_empty() {
        return Err(GitFailure::NoMergeBase);
    }

    // `--` keeps a file that happens to be named like the commit from being read as a path.
    let mut args: Vec<&str> = DIFF_FLAGS.to_vec();
    args.extend([sha.as_str(), "--"]);
    let mut diff = git(&toplevel, args).await?;

    let untracked = git(
        &toplevel,
        ["ls-files", "--others", "--exclude-standard", "-z"],
    )
    .await?;
    // The futures are collected first: a stream over iterator adapters with borrowing closures
    // makes the caller's future fail the `Send` check of `tokio::spawn`.
    let diffs: Vec<_> = untracked
        .split(|byte| *byte == 0)
        // A trailing slash marks a nested repository, which `--no-index` cannot diff as a file.
        .filter(|path| !path.is_empty() && !path.ends_with(b"/"))
        .map(|path| untracked_file_diff(&toplevel, OsStr::from_bytes(path)))
        .collect();
    let untracked_diffs: Vec<Vec<u8>> = futures::stream::iter(diffs)
        .buffered(UNTRACKED_DIFF_CONCURRENCY)
        .try_collect()
        .await?;
    for chunk in untracked_diffs {
        diff.extend_from_slice(&chunk);
    }

    Ok(GitDiffToRemoteResponse {
        sha,
        diff: String::from_utf8_lossy(&diff).into_owned(),
    })
}

/// The full name of the ref to diff against, or `None` when the repository tracks nothing.
async fn remote_tracking_ref(toplevel: &Path) -> Result<Option<String>, GitFailure> {
    if let Ok(upstream) = git(
        toplevel,
        ["rev-parse", "--symbolic-full-name", "@{upstream}"],
    )
    .await
    {
        let upstream = String::from_utf8_lossy(&trim_line(upstream)).into_owned();
        if !upstream.is_empty() {
            return Ok(Some(upstream));
        }
    }

    let remotes = git(toplevel, ["remote"]).await?;
    let remotes = String::from_utf8_lossy(&remotes).into_owned();
    let mut remotes: Vec<&str> = remotes.lines().filter(|line| !line.is_empty()).collect();
    // A stable sort keeps the other remotes in git's order.
    remotes.sort_by_key(|remote| *remote != "origin");

    for remote in remotes {
        let head = format!("refs/remotes/{remote}/HEAD");
        if let Ok(target) = git(toplevel, ["symbolic-ref", "--quiet", head.as_str()]).await {
            let target = String::from_utf8_lossy(&trim_line(target)).into_owned();
            if !target.is_empty() && ref_exists(toplevel, &target).await {
                return Ok(Some(target));
            }
        }
        for branch in ["main", "master"] {
            let candidate = format!("refs/remotes/{remote}/{branch}");
            if ref_exists(toplevel, &candidate).await {
                return Ok(Some(candidate));
            }
        }
    }
    Ok(None)
}

async fn ref_exists(toplevel: &Path, full_name: &str) -> bool {
    let commit = format!("{full_name}^{{commit}}");
    git(
        toplevel,
        ["rev-parse", "--verify", "--quiet", commit.as_str()],
    )
    .await
    .is_ok()
}

/// A new-file diff for one untracked path; `--no-index` exits with 1 whenever the files differ, which is the
/// normal case here.
async fn untracked_file_diff(toplevel: &Path, path: &OsStr) -> Result<Vec<u8>, GitFailure> {
    let mut args: Vec<&OsStr> = DIFF_FLAGS.iter().map(OsStr::new).collect();
    args.extend([
        OsStr::new("--no-index"),
        OsStr::new("--"),
        OsStr::new("/dev/null"),
        path,
    ]);
    run_git(toplevel, &args, &[0, 1]).await
}

/// Runs `git` in `dir` and returns its stdout, failing unless it exits with 0.
async fn git<I, S>(dir: &Path, args: I) -> Result<Vec<u8>, GitFailure>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<S> = args.into_iter().collect();
    let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
    run_git(dir, &args, &[0]).await
}

async fn run_git(
    dir: &Path,
    args: &[&OsStr],
    success_codes: &[i32],
) -> Result<Vec<u8>, GitFailure> {
    let output = Command::new("git")
        .args(["--no-pager", "-c", "core.quotepath=off"])
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        // `git diff` would otherwise refresh and rewrite the index, racing with the user's own git commands.
        .env("GIT_OPTIONAL_LOCKS", "0")
        // An inherited repository override would point every command at some other repository.
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await;
    let output = match output {
        Ok(output) => output,
        Err(source) => {
            return Err(GitFailure::Spawn {
                args: display_args(args),
                source,
            });
        }
    };
    match output.status.code() {
        Some(code) if success_codes.contains(&code) => Ok(output.stdout),
        _ => Err(GitFailure::Exit {
            args: display_args(args),
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        }),
    }
}

fn display_args(args: &[&OsStr]) -> String {
    args.iter()
        .map(|arg| arg.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Drops the trailing newline (and any other trailing whitespace) of a one-line answer.
fn trim_line(mut output: Vec<u8>) -> Vec<u8> {
    while output.last().is_some_and(u8::is_ascii_whitespace) {
        output.pop();
    }
    output
}

#[cfg(test)]
mod tests {
    use std::{fs, path::Path, process::Command};

    use pretty_assertions::assert_eq;

    use super::*;

    /// Runs git synchronously for test setup, isolated from the user's and the system's configuration.
    fn run(dir: &Path, args: &[&str]) -> String {
        let output = Command::new("git")
            .args([
                "-c",
                "user.name=Tandem Test",
                "-c",
                "user.email=test@example.com",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    /// A bare "remote" with one pushed commit holding `a.txt`, and a clone of it; returns the clone's path.
    fn clone_with_remote(base: &Path) -> PathBuf {
        let remote = base.join("remote.git");
        let seed = base.join("seed");
        let work = base.join("work");
        fs::create_dir_all(&seed).unwrap();
        run(
            base,
            &["init", "--bare", "--quiet", remote.to_str().unwrap()],
        );
        run(&seed, &["init", "--quiet"]);
        fs::write(seed.join("a.txt"), "one\n").unwrap();
        run(&seed, &["add", "a.txt"]);
        run(&seed, &["commit", "--quiet", "-m", "initial"]);
        run(
            &seed,
            &["remote", "add", "origin", remote.to_str().unwrap()],
        );
        run(&seed, &["push", "--quiet", "origin", "main"]);
        run(
            base,
            &[
                "clone",
                "--quiet",
                remote.to_str().unwrap(),
                work.to_str().unwrap(),
            ],
        );
        work
    }

    fn not_a_repo_message(cwd: &Path) -> String {
        format!(
            "failed to compute git diff to remote for cwd: \"{}\"",
            cwd.display()
        )
    }

    #[tokio::test]
    async fn diff_covers_local_commits_modified_and_untracked_files() {
        let base = tempfile::tempdir().unwrap();
        let work = clone_with_remote(base.path());
        let pushed = run(&work, &["rev-parse", "origin/main"]);
        // A local commit that was never pushed: the merge-base stays at the pushed commit.
        fs::write(work.join("b.txt"), "local\n").unwrap();
        run(&work, &["add", "b.txt"]);
        run(&work, &["commit", "--quiet", "-m", "local"]);
        fs::write(work.join("a.txt"), "one\ntwo\n").unwrap();
        fs::create_dir_all(work.join("sub")).unwrap();
        fs::write(work.join("sub/new file.txt"), "fresh\n").unwrap();
        fs::write(work.join(".gitignore"), "ignored.txt\n").unwrap();
        fs::write(work.join("ignored.txt"), "secret\n").unwrap();

        // Asking from a subdirectory still diffs the whole repository.
        let response = git_diff_to_remote(&work.join("sub")).await.unwrap();

        assert_eq!(response.sha, pushed);
        assert_eq!(
            response.sha,
            run(&work, &["merge-base", "HEAD", "origin/main"])
        );
        let diff = &response.diff;
        assert!(
            diff.contains(
                "diff --git a/a.txt b/a.txt\nindex 5626abf..814f4a4 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n one\n+two\n"
            ),
            "{diff}"
        );
        assert!(
            diff.contains("diff --git a/b.txt b/b.txt\nnew file mode 100644\n"),
            "{diff}"
        );
        assert!(
            diff.contains(
                "diff --git a/sub/new file.txt b/sub/new file.txt\nnew file mode 100644\n"
            ),
            "{diff}"
        );
        assert!(diff.contains("+fresh\n"), "{diff}");
        assert!(
            diff.contains("diff --git a/.gitignore b/.gitignore\nnew file mode"),
            "{diff}"
        );
        assert!(!diff.contains("secret"), "{diff}");
        assert!(!diff.contains("/dev/null b/"), "{diff}");
    }

    #[tokio::test]
    async fn branch_without_upstream_uses_the_remote_default_branch() {
        let base = tempfile::tempdir().unwrap();
        let work = clone_with_remote(base.path());
        let pushed = run(&work, &["rev-parse", "origin/main"]);
        run(&work, &["checkout", "--quiet", "-b", "feature"]);
        fs::write(work.join("a.txt"), "changed\n").unwrap();

        let response = git_diff_to_remote(&work).await.unwrap();

        assert_eq!(response.sha, pushed);
        assert!(response.diff.contains("+changed\n"), "{}", response.diff);
    }

    #[tokio::test]
    async fn other_remote_without_default_branch_falls_back_to_main() {
        let base = tempfile::tempdir().unwrap();
        let work = clone_with_remote(base.path());
        let pushed = run(&work, &["rev-parse", "origin/main"]);
        run(&work, &["remote", "rename", "origin", "mirror"]);
        run(&work, &["remote", "set-head", "mirror", "--delete"]);
        run(&work, &["checkout", "--quiet", "-b", "feature"]);

        let response = git_diff_to_remote(&work).await.unwrap();

        assert_eq!(response.sha, pushed);
    }

    #[tokio::test]
    async fn clean_checkout_has_an_empty_diff() {
        let base = tempfile::tempdir().unwrap();
        let work = clone_with_remote(base.path());
        let pushed = run(&work, &["rev-parse", "HEAD"]);

        let response = git_diff_to_remote(&work).await.unwrap();

        assert_eq!(
            response,
            GitDiffToRemoteResponse {
                sha: pushed,
                diff: String::new(),
            }
        );
    }

    #[tokio::test]
    async fn not_a_repository_is_the_codex_error() {
        let dir = tempfile::tempdir().unwrap();

        let error = git_diff_to_remote(dir.path()).await.unwrap_err();

        assert_eq!(error.to_string(), not_a_repo_message(dir.path()));
    }

    #[tokio::test]
    async fn missing_directory_is_the_codex_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");

        let error = git_diff_to_remote(&missing).await.unwrap_err();

        assert_eq!(error.to_string(), not_a_repo_message(&missing));
    }

    #[tokio::test]
    async fn repository_without_remote_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &["init", "--quiet"]);
        fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        run(dir.path(), &["add", "a.txt"]);
        run(dir.path(), &["commit", "--quiet", "-m", "initial"]);

        let error = git_diff_to_remote(dir.path()).await.unwrap_err();

        assert_eq!(error.to_string(), not_a_repo_message(dir.path()));
        assert!(matches!(error.cause, GitFailure::NoRemote), "{error:?}");
    }
}
