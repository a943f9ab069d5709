//! `fuzzyFileSearch` over real directory trees and `gitDiffToRemote` over real git
//! repositories with a local bare remote (`spec/app-server-protocol.md` §3.13, §3.14).
//! `command/exec` is in `utilities.rs`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::utilities::started_server;

fn touch(root: &Path, relative: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "").unwrap();
}

fn file_match(root: &str, path: &str, match_type: &str, score: u32, indices: [u32; 3]) -> Value {
    json!({
        "root": root,
        "path": path,
        "match_type": match_type,
        "file_name": path.rsplit('/').next().unwrap(),
        "score": score,
        "indices": indices,
    })
}

#[tokio::test]
async fn fuzzy_file_search_ranks_matches_and_skips_ignored_files() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path();
    fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
    for file in [
        "hello.txt",
        "help.md",
        "other.txt",
        "src/hello_world.rs",
        "src/help/index.md",
        "docs/shell.md",
        ".hidden/hello.cfg",
        // Ignored: a directory and a pattern from `.gitignore`.
        "target/hello.o",
        "debug-hello.log",
    ] {
        touch(root, file);
    }
    let root_name = root.to_str().unwrap();

    let mut server = started_server("").await;
    let result = server
        .request(
            "fuzzyFileSearch",
            json!({"query": "hel", "roots": [root_name], "cancellationToken": null}),
        )
        .await
        .unwrap();
    // Best first; equal scores rank shorter paths first, then by path. Directories match too,
    // dotfiles are searched, ignored files are not.
    assert_eq!(
        result,
        json!({"files": [
            file_match(root_name, "help.md", "file", 84, [0, 1, 2]),
            file_match(root_name, "src/help", "directory", 84, [4, 5, 6]),
            file_match(root_name, "hello.txt", "file", 84, [0, 1, 2]),
            file_match(root_name, ".hidden/hello.cfg", "file", 84, [8, 9, 10]),
            file_match(root_name, "src/help/index.md", "file", 84, [4, 5, 6]),
            file_match(root_name, "src/hello_world.rs", "file", 84, [4, 5, 6]),
            file_match(root_name, "docs/shell.md", "file", 56, [6, 7, 8]),
        ]})
    );

    // Several roots are searched together, each match naming its root.
    let second = tempfile::tempdir().unwrap();
    touch(second.path(), "shell.md");
    let second_name = second.path().to_str().unwrap();
    let result = server
        .request(
            "fuzzyFileSearch",
            json!({"query": "shell", "roots": [root_name, second_name], "cancellationToken": "t-1"}),
        )
        .await
        .unwrap();
    let found: Vec<(&str, &str)> = result["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            (
                file["root"].as_str().unwrap(),
                file["path"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (second_name, "shell.md"),
            (root_name, "docs/shell.md"),
            // Fuzzy: s…h…e…l…l.
            (root_name, "src/hello_world.rs"),
        ]
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn fuzzy_file_search_checks_its_roots() {
    let tree = tempfile::tempdir().unwrap();
    touch(tree.path(), "hello.txt");
    let file = tree.path().join("hello.txt");
    let missing = tree.path().join("missing");
    let mut server = started_server("").await;

    // As on the reference server, no roots and missing roots give no matches.
    for roots in [json!([]), json!([missing])] {
        let result = server
            .request("fuzzyFileSearch", json!({"query": "hel", "roots": roots}))
            .await;
        assert_eq!(result, Ok(json!({"files": []})), "{roots}");
    }
    // An empty query matches nothing.
    let result = server
        .request(
            "fuzzyFileSearch",
            json!({"query": "  ", "roots": [tree.path()]}),
        )
        .await;
    assert_eq!(result, Ok(json!({"files": []})));

    let error = server
        .request(
            "fuzzyFileSearch",
            json!({"query": "hel", "roots": ["relative/dir"]}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "fuzzyFileSearch root must be an absolute path: \"relative/dir\""})
    );
    let error = server
        .request("fuzzyFileSearch", json!({"query": "hel", "roots": [file]}))
        .await
        .unwrap_err();
    let message = format!(
        "fuzzyFileSearch root is not a directory: {:?}",
        file.to_str().unwrap()
    );
    assert_eq!(error, json!({"code": -32600, "message": message}));
    let error = server
        .request("fuzzyFileSearch", json!({"query": "hel"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "Invalid request: missing field `roots`"})
    );
    assert_eq!(server.shutdown().await, Some(0));
}

/// Runs `git` in `dir` without the host's configuration; returns its trimmed stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// A clone of a local bare remote, with `user.name`/`user.email` set and one pushed commit
/// (`a.txt` = "one").
fn cloned_repository(dir: &Path) -> std::path::PathBuf {
    let remote = dir.join("remote.git");
    let clone = dir.join("clone");
    fs::create_dir_all(&remote).unwrap();
    git(&remote, &["init", "--bare", "--initial-branch=main"]);
    git(
        dir,
        &["clone", "--quiet", remote.to_str().unwrap(), "clone"],
    );
    git(&clone, &["config", "user.name", "Test User"]);
    git(&clone, &["config", "user.email", "test@example.com"]);
    git(&clone, &["checkout", "--quiet", "-b", "main"]);
    fs::write(clone.join("a.txt"), "one\n").unwrap();
    git(&clone, &["add", "a.txt"]);
    git(&clone, &["commit", "--quiet", "-m", "one"]);
    git(&clone, &["push", "--quiet", "-u", "origin", "main"]);
    clone
}

#[tokio::test]
async fn git_diff_to_remote_diffs_the_tree_against_the_merge_base() {
    let dir = tempfile::tempdir().unwrap();
    let clone = cloned_repository(dir.path());
    let pushed = git(&clone, &["rev-parse", "origin/main"]);
    // A local commit, an unstaged change and an untracked file: all are in the diff, which is
    // against the remote-tracking commit rather than HEAD.
    fs::write(clone.join("b.txt"), "bee\n").unwrap();
    git(&clone, &["add", "b.txt"]);
    git(&clone, &["commit", "--quiet", "-m", "two"]);
    fs::write(clone.join("a.txt"), "one\ntwo\n").unwrap();
    fs::create_dir(clone.join("sub")).unwrap();
    fs::write(clone.join("sub/new.txt"), "new\n").unwrap();
    fs::write(clone.join(".gitignore"), "*.log\n").unwrap();
    fs::write(clone.join("ignored.log"), "noise\n").unwrap();

    let mut server = started_server("").await;
    // From a subdirectory: paths stay repository-relative.
    let result = server
        .request("gitDiffToRemote", json!({"cwd": clone.join("sub")}))
        .await
        .unwrap();
    assert_eq!(result["sha"], pushed.as_str());
    let diff = result["diff"].as_str().unwrap();
    assert_eq!(
        diff,
        "diff --git a/a.txt b/a.txt\nindex 5626abf..814f4a4 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n one\n+two\n\
         diff --git a/b.txt b/b.txt\nnew file mode 100644\nindex 0000000..af9c6fd\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+bee\n\
         diff --git a/.gitignore b/.gitignore\nnew file mode 100644\nindex 0000000..397b4a7\n--- /dev/null\n+++ b/.gitignore\n@@ -0,0 +1 @@\n+*.log\n\
         diff --git a/sub/new.txt b/sub/new.txt\nnew file mode 100644\nindex 0000000..3e75765\n--- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1 @@\n+new\n"
    );

    // Applied to a checkout of `sha`, the diff reproduces the working tree.
    let checkout = dir.path().join("checkout");
    git(
        dir.path(),
        &[
            "clone",
            "--quiet",
            dir.path().join("remote.git").to_str().unwrap(),
            "checkout",
        ],
    );
    git(&checkout, &["checkout", "--quiet", &pushed]);
    let patch = dir.path().join("diff.patch");
    fs::write(&patch, diff).unwrap();
    git(&checkout, &["apply", patch.to_str().unwrap()]);
    for file in ["a.txt", "b.txt", ".gitignore", "sub/new.txt"] {
        assert_eq!(
            fs::read_to_string(checkout.join(file)).unwrap(),
            fs::read_to_string(clone.join(file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn git_diff_to_remote_fails_clearly_without_a_repository_or_a_remote() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    fs::create_dir(&plain).unwrap();
    let local_only = dir.path().join("local-only");
    fs::create_dir(&local_only).unwrap();
    git(&local_only, &["init", "--quiet", "--initial-branch=main"]);
    git(&local_only, &["config", "user.name", "Test User"]);
    git(&local_only, &["config", "user.email", "test@example.com"]);
    fs::write(local_only.join("a.txt"), "one\n").unwrap();
    git(&local_only, &["add", "a.txt"]);
    git(&local_only, &["commit", "--quiet", "-m", "one"]);
    let missing = dir.path().join("missing");

    let mut server = started_server("").await;
    for cwd in [plain, local_only, missing] {
        let error = server
            .request("gitDiffToRemote", json!({"cwd": cwd}))
            .await
            .unwrap_err();
        let message = format!(
            "failed to compute git diff to remote for cwd: {:?}",
            cwd.to_str().unwrap()
        );
        assert_eq!(error, json!({"code": -32600, "message": message}));
    }
    assert_eq!(server.shutdown().await, Some(0));
}
