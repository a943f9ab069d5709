//! `tandem run` against the mock model: its exit code says whether the turn completed, and a
//! failed turn shows the provider's own error text (a local server's 500 body) under the
//! summary message; a run on a fresh home logs no warning.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::process::Output;

use tandem_tests::mock_model::{MockModel, MockResponse, chat_text};

/// A `chat` provider without retries, as a local OpenAI-compatible server is configured;
/// `extra` is appended to its table.
fn local_config(base_url: &str, idle_timeout_ms: u64, extra: &str) -> String {
    format!(
        "model_provider = \"local\"\nmodel = \"smollm2\"\napproval_policy = \"never\"\n\n[model_providers.local]\nbase_url = \"{base_url}\"\nwire_api = \"chat\"\nrequest_max_retries = 0\nstream_max_retries = 0\nstream_idle_timeout_ms = {idle_timeout_ms}\n{extra}"
    )
}

/// Runs `tandem run --no PROMPT` in a fresh home configured for `model`.
async fn tandem_run(model: &MockModel, prompt: &str) -> Output {
    tandem_run_with(local_config(&model.base_url(), 5000, ""), prompt).await
}

/// Like [`tandem_run`], with `config` as the config file.
async fn tandem_run_with(config: String, prompt: &str) -> Output {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    let child = tokio::process::Command::new(tandem_tests::server::tandem_binary())
        .args(["run", "--no", prompt])
        .env("TANDEM_HOME", home.path())
        .env("RUST_LOG", "warn")
        .current_dir(workspace.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("tandem run finishes")
        .unwrap()
}

#[tokio::test]
async fn a_failed_turn_exits_1_and_prints_the_providers_error_text() {
    let model = MockModel::start().await;
    let body = "llama_decode returned -3: the KV cache is full\n(try a larger --n_ctx)";
    model.push(MockResponse::error(500, body));
    let output = tandem_run(&model, "hello").await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    let summary = stdout
        .split("— turn failed —\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no failed turn in:\n{stdout}"));
    assert_eq!(
        summary.lines().collect::<Vec<_>>(),
        [
            "error: We’re currently experiencing high demand, which may cause temporary errors.",
            "  llama_decode returned -3: the KV cache is full",
            "  (try a larger --n_ctx)",
        ],
        "{stdout}"
    );
    assert_eq!(model.request_count(), 1);
}

#[tokio::test]
async fn a_completed_turn_exits_0_and_an_error_that_quotes_the_provider_is_printed_once() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(chat_text(&["Hello", " there."])));
    let output = tandem_run(&model, "hello").await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("◆ Hello there."), "{stdout}");
    assert!(stdout.ends_with("— turn completed —\n"), "{stdout}");

    // A 404's message already quotes the provider's words: they are not repeated.
    let model = MockModel::start().await;
    model.push(MockResponse::error(404, "model 'smollm2' not loaded"));
    let output = tandem_run(&model, "hello").await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert_eq!(
        stdout.matches("model 'smollm2' not loaded").count(),
        2,
        "once in the `error` notification, once in the summary:\n{stdout}"
    );
}

#[tokio::test]
async fn a_slow_answer_without_streaming_names_the_setting_that_bounds_it() {
    let model = MockModel::start().await;
    // The answer's headers go out, its body never completes: a slow local server.
    let (response, _gate) = MockResponse::gated(chat_text(&["late"]));
    model.push(response);
    // 300 ms bound the whole non-streamed request.
    let config = local_config(&model.base_url(), 300, "stream = false\n");
    let output = tandem_run_with(config, "hello").await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "error: no answer from the model within 300 ms: without streaming the whole answer must arrive within `stream_idle_timeout_ms`; for a slow server, raise it under `[model_providers.local]` in config.toml"
        ),
        "{stdout}"
    );
    assert_eq!(model.requests()[0]["stream"], false);
}

#[tokio::test]
async fn a_run_on_a_fresh_home_logs_no_warning() {
    // A fresh home has no thread index yet: creating it is normal, not worth a warning.
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let child = tokio::process::Command::new(tandem_tests::server::tandem_binary())
        .args(["run", "--demo", "--no", "hello"])
        .env("TANDEM_HOME", home.path())
        // The default filter, as a user who sets nothing sees it.
        .env_remove("RUST_LOG")
        .current_dir(workspace.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("tandem run finishes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.ends_with("— turn completed —\n"), "{stdout}");
    // The thread was stored: the index was created along the way.
    assert!(home.path().join("state.sqlite").is_file());
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains(" WARN ") || line.contains(" ERROR "))
        .collect();
    assert_eq!(warnings, Vec::<&str>::new(), "{stderr}");
}
