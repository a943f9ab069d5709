//! Running `tandem exec` in tests: a fresh home and git workspace, the prompt on stdin, and the
//! outcome (status, stdout, stderr, the `--json` events).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on broken fixtures"
)]
#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWriteExt;

/// Upper bound of one run.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A home (with the mock provider's config) and a git workspace.
pub struct ExecSetup {
    pub home: tempfile::TempDir,
    pub workspace: tempfile::TempDir,
}

impl ExecSetup {
    /// A home configured for the mock model at `base_url` and a workspace that is a git
    /// repository (`git init`).
    pub fn new(base_url: &str) -> ExecSetup {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.toml"),
            tandem_tests::server::mock_config(base_url),
        )
        .unwrap();
        let workspace = tempfile::tempdir().unwrap();
        git_init(workspace.path());
        ExecSetup { home, workspace }
    }

    /// `tandem exec ARGS` with `stdin`, `TANDEM_HOME` set to the home.
    pub async fn run(&self, args: &[&str], stdin: &str) -> ExecOutput {
        self.run_with(args, stdin, &[("TANDEM_HOME", self.home.path())])
            .await
    }

    /// `tandem exec ARGS` with `stdin` and exactly these home variables.
    pub async fn run_with(&self, args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> ExecOutput {
        let child = self.spawn(args, env);
        finish(child, stdin).await
    }

    /// Spawns `tandem exec ARGS` in the workspace with piped stdio.
    pub fn spawn(&self, args: &[&str], env: &[(&str, &Path)]) -> tokio::process::Child {
        let mut command = tokio::process::Command::new(tandem_tests::server::tandem_binary());
        command
            .arg("exec")
            .args(args)
            .current_dir(self.workspace.path())
            .env_remove("TANDEM_HOME")
            .env_remove("CODEX_HOME")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("CODEX_API_KEY")
            .env_remove("CODEX_INTERNAL_ORIGINATOR_OVERRIDE")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (name, value) in env {
            command.env(name, value);
        }
        command.spawn().unwrap()
    }
}

/// What a run printed and how it ended.
pub struct ExecOutput {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl ExecOutput {
    /// The `--json` events (every stdout line must be one).
    pub fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|error| panic!("not a JSON event: {line}: {error}\n{self}"))
            })
            .collect()
    }

    /// The `type` of each event.
    pub fn types(&self) -> Vec<String> {
        self.events()
            .iter()
            .map(|event| event["type"].as_str().unwrap().to_string())
            .collect()
    }

    /// The thread id of `thread.started`.
    pub fn thread_id(&self) -> String {
        let events = self.events();
        assert_eq!(events[0]["type"], "thread.started", "{self}");
        events[0]["thread_id"].as_str().unwrap().to_string()
    }
}

impl std::fmt::Display for ExecOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "status {:?}\n--- stdout\n{}--- stderr\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}

/// Writes `stdin`, closes it and waits for the run to end.
pub async fn finish(mut child: tokio::process::Child, stdin: &str) -> ExecOutput {
    let mut pipe = child.stdin.take().unwrap();
    // A run that refuses before reading stdin closes it; the write may then fail.
    let _ = pipe.write_all(stdin.as_bytes()).await;
    drop(pipe);
    let output = tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output())
        .await
        .expect("tandem exec finishes")
        .unwrap();
    ExecOutput {
        status: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `git init` in `dir`.
pub fn git_init(dir: &Path) {
    let status = std::process::Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git init failed");
}

/// The rollout files under `home/sessions`.
pub fn rollouts(home: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![home.join("sessions")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                found.push(path);
            }
        }
    }
    found
}

/// The text of the last user message of a Responses request body.
pub fn last_user_text(body: &Value) -> String {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|item| item["role"] == "user")
        .and_then(|item| item["content"].as_array())
        .and_then(|parts| parts.iter().rev().find(|part| part["type"] == "input_text"))
        .and_then(|part| part["text"].as_str())
        .unwrap_or_default()
        .to_string()
}
