//! The command line as the reference's launchers use it: `-c` before and after the subcommand
//! both apply (the later wins per key), `--enable` / `--disable` are `-c features.NAME=…`,
//! `--strict-config` refuses unknown keys, `--print-startup-config` prints and exits, and the
//! reference's other `app-server` flags are accepted with a note on stderr.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use tandem_tests::server::tandem_binary;

/// What one run of the binary printed.
struct Run {
    status: Option<i32>,
    /// The JSON lines of stdout.
    messages: Vec<Value>,
    stderr: String,
}

/// Runs `tandem ARGS` in a fresh home holding `config_toml`, sends `initialize` and
/// `config/read` on stdin, closes it, and waits for the process to end.
fn run_tandem(args: &[&str], config_toml: &str) -> Run {
    let home = tempfile::tempdir().expect("home");
    std::fs::write(home.path().join("config.toml"), config_toml).expect("config");
    let mut child = Command::new(tandem_binary())
        .args(args)
        .env("TANDEM_HOME", home.path())
        .env("RUST_LOG", "warn")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tandem");
    let requests = [
        json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "cli-test", "version": "1"}}}),
        json!({"id": 2, "method": "config/read", "params": {}}),
    ];
    let mut stdin = child.stdin.take().expect("stdin");
    for request in requests {
        // A process that refused to start has closed its stdin: that is what the test checks.
        let _ = writeln!(stdin, "{request}");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("wait");
    let messages = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    Run {
        status: output.status.code(),
        messages,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The effective config of a run's `config/read` answer.
fn effective_config(run: &Run) -> &Value {
    let answer = run
        .messages
        .iter()
        .find(|message| message["id"] == 2)
        .unwrap_or_else(|| panic!("no config/read answer: {:?}\n{}", run.messages, run.stderr));
    &answer["result"]["config"]
}

const TWO_PROVIDERS: &str = "model_provider = \"first\"\n\
    [model_providers.first]\nname = \"First\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
    [model_providers.second]\nname = \"Second\"\nbase_url = \"http://127.0.0.1:9/v1\"\n";

#[test]
fn config_flags_before_and_after_the_subcommand_both_apply() {
    let run = run_tandem(
        &[
            "-c",
            "model_provider=\"second\"",
            "app-server",
            "-c",
            "model=\"m1\"",
        ],
        TWO_PROVIDERS,
    );
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let config = effective_config(&run);
    assert_eq!(config["model_provider"], "second", "{config}");
    assert_eq!(config["model"], "m1", "{config}");
}

#[test]
fn the_flag_after_the_subcommand_wins_for_the_same_key() {
    let run = run_tandem(
        &[
            "--config",
            "model=\"before\"",
            "app-server",
            "-c",
            "model=\"after\"",
        ],
        TWO_PROVIDERS,
    );
    let config = effective_config(&run);
    assert_eq!(config["model"], "after", "{config}");
    assert_eq!(config["model_provider"], "first", "{config}");
}

#[test]
fn enable_and_disable_are_accepted_in_both_positions() {
    let run = run_tandem(
        &[
            "--enable",
            "guardian_approval",
            "app-server",
            "--disable",
            "shell_snapshot",
            "--enable",
            "apply_patch_freeform",
        ],
        TWO_PROVIDERS,
    );
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert!(
        !run.stderr.contains("unexpected argument"),
        "{}",
        run.stderr
    );
    effective_config(&run);
}

#[test]
fn strict_config_refuses_an_unknown_key_and_names_it() {
    let config = format!("{TWO_PROVIDERS}\nno_such_setting = 1\n");
    let strict = run_tandem(&["app-server", "--strict-config"], &config);
    assert_eq!(strict.status, Some(1), "{}", strict.stderr);
    assert!(strict.messages.is_empty(), "{:?}", strict.messages);
    assert!(
        strict.stderr.contains("no_such_setting") && strict.stderr.contains("--strict-config"),
        "{}",
        strict.stderr
    );
    // Without the flag the key is reported and ignored.
    let lenient = run_tandem(&["app-server"], &config);
    assert_eq!(lenient.status, Some(0), "{}", lenient.stderr);
    assert!(
        lenient.stderr.contains("no_such_setting"),
        "{}",
        lenient.stderr
    );
    effective_config(&lenient);
}

#[test]
fn print_startup_config_prints_the_requirements_and_exits() {
    let config = format!("{TWO_PROVIDERS}\n[clients]\nmax_sandbox = \"workspace-write\"\n");
    let run = run_tandem(&["app-server", "--print-startup-config"], &config);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(run.messages.len(), 1, "{:?}", run.messages);
    let report = &run.messages[0];
    assert_eq!(report["appServerVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        report["configRequirements"]["requirements"]["allowedSandboxModes"],
        json!(["read-only", "workspace-write"])
    );
    // A bad configuration is reported instead.
    let broken = run_tandem(
        &["app-server", "--print-startup-config"],
        "model_provider = 3\n",
    );
    assert_eq!(broken.status, Some(1), "{}", broken.stderr);
    assert!(
        broken.stderr.contains("model_provider"),
        "{}",
        broken.stderr
    );
}

#[test]
fn the_reference_flags_that_mean_nothing_here_are_accepted_with_a_note() {
    let run = run_tandem(
        &[
            "app-server",
            "--stdio",
            "--analytics-default-enabled",
            "--startup-client-info",
            "{\"name\":\"ide\",\"version\":\"1\"}",
            "--ws-auth",
            "capability-token",
        ],
        TWO_PROVIDERS,
    );
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    effective_config(&run);
    for flag in [
        "--analytics-default-enabled",
        "--startup-client-info",
        "--ws-auth",
    ] {
        assert!(
            run.stderr
                .contains(&format!("note: {flag} is accepted and ignored")),
            "{flag}: {}",
            run.stderr
        );
    }
}

#[test]
fn an_unsupported_listener_is_a_clear_error() {
    let run = run_tandem(
        &["app-server", "--listen", "tcp://127.0.0.1:1"],
        TWO_PROVIDERS,
    );
    assert_eq!(run.status, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("unsupported --listen"),
        "{}",
        run.stderr
    );
}
