//! MCP servers used as tools are untrusted: a real stdio server written with the official
//! Python SDK (`fixtures/mcp_env_server.py`) shows the environment it was started with, and
//! sends results of 15 MiB (cut to `mcp_tool_output_max_bytes` before the model, the client or
//! the rollout sees them) and 50 MiB (over the transport's message limit: the call fails at
//! once, not at its timeout, and the server goes on serving).

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::path::{Path, PathBuf};

use common::mcp_servers::{python, toml_string};
use common::tool_turns::{Setup, config, done, find, run_turn, tool_output};
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call};
use tandem_tests::server::{SpawnOptions, TestServer};

/// The environment of the Tandem server under test: a provider key, a token the configuration
/// passes on with `env_vars`, and a plain variable no server asked for.
const SERVER_ENV: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "sk-server-secret-0001"),
    ("TANDEM_TEST_PASSED_TOKEN", "passed-through-0002"),
    ("TANDEM_TEST_PLAIN", "plain-0003"),
];

fn env_server_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp_env_server.py")
}

/// `[mcp_servers.env]`: the fixture server over stdio, with `extra` keys.
fn env_server(extra: &str) -> String {
    format!(
        "\n[mcp_servers.env]\ncommand = {}\nargs = [{}]\nstartup_timeout_sec = 60\n{extra}\n",
        toml_string(&python().to_string_lossy()),
        toml_string(&env_server_script().to_string_lossy())
    )
}

/// A Tandem server with [`SERVER_ENV`], the mock model and `mcp_config`, and a thread whose
/// server `env` is ready.
async fn start(mcp_config: &str) -> Setup {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with_env(
        SpawnOptions {
            config_toml: config(&model.base_url(), "never", "read-only", "responses") + mcp_config,
            args: Vec::new(),
            home: None,
            cwd: None,
        },
        SERVER_ENV,
    )
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    let result = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    let status = server
        .take_matching(|message| {
            message["method"] == "mcpServer/startupStatus/updated"
                && message["params"]["name"] == "env"
                && (message["params"]["status"] == "ready"
                    || message["params"]["status"] == "failed")
        })
        .await;
    assert_eq!(status["params"]["status"], "ready", "{status:#}");
    Setup {
        model,
        server,
        thread_id,
        workspace,
    }
}

fn call(call_id: &str, tool: &str, arguments: Value) -> MockResponse {
    MockResponse::sse(responses_function_call(
        call_id,
        tool,
        &arguments.to_string(),
    ))
}

/// The completed `mcpToolCall` item of `call_id`.
fn mcp_item<'a>(messages: &'a [Value], call_id: &str) -> &'a Value {
    find(messages, "item/completed")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["type"] == "mcpToolCall" && item["id"] == call_id)
        .unwrap_or_else(|| panic!("no completed mcpToolCall {call_id}"))
}

/// The rollout files under `home`.
fn rollouts(home: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut directories = vec![home.join("sessions")];
    while let Some(directory) = directories.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                directories.push(path);
            } else if path
                .extension()
                .is_some_and(|extension| extension == "jsonl")
            {
                found.push(path);
            }
        }
    }
    found
}

#[tokio::test]
async fn a_stdio_server_gets_a_minimal_environment_and_its_env_vars_only() {
    let mcp = env_server(
        "env_vars = [\"TANDEM_TEST_PASSED_TOKEN\", \"TANDEM_TEST_UNSET\"]\nenv = { CONFIGURED = \"yes\" }",
    );
    let mut setup = start(&mcp).await;
    setup
        .model
        .push_all([call("call_env", "mcp__env__environment", json!({})), done()]);
    let messages = run_turn(&mut setup, "what do you see?", Vec::new()).await;
    assert_eq!(mcp_item(&messages, "call_env")["status"], "completed");
    let output = tool_output(&setup.model, "call_env");
    let environment: serde_json::Map<String, Value> = serde_json::from_str(&output).unwrap();

    // What the configuration passes, and nothing else of the server's environment.
    assert_eq!(
        environment["TANDEM_TEST_PASSED_TOKEN"],
        "passed-through-0002"
    );
    assert_eq!(environment["CONFIGURED"], "yes");
    assert!(environment.contains_key("PATH"), "{environment:#?}");
    for name in [
        "OPENAI_API_KEY",
        "TANDEM_TEST_PLAIN",
        "TANDEM_HOME",
        "RUST_LOG",
        "TANDEM_TEST_UNSET",
    ] {
        assert!(
            !environment.contains_key(name),
            "{name} leaked: {environment:#?}"
        );
    }
    // Python itself may add LC_CTYPE (its locale coercion); any other name is a leak.
    let allowed = [
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LC_ALL",
        "TERM",
        "TMPDIR",
        "TZ",
        "LC_CTYPE",
        "TANDEM_TEST_PASSED_TOKEN",
        "CONFIGURED",
    ];
    for name in environment.keys() {
        assert!(
            allowed.contains(&name.as_str()),
            "unexpected variable {name}"
        );
    }
}

#[tokio::test]
async fn a_15_mib_result_is_cut_to_the_cap_before_anyone_sees_it() {
    let mut setup = start(&env_server("")).await;
    setup.model.push_all([
        call("call_blob", "mcp__env__blob", json!({"mebibytes": 15})),
        done(),
    ]);
    let messages = run_turn(&mut setup, "a big one", Vec::new()).await;

    // The client's item: the text cut to the default cap (1 MiB), then the marker.
    let item = mcp_item(&messages, "call_blob");
    assert_eq!(item["status"], "completed", "{}", item["error"]);
    let content = item["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 2);
    let kept = content[0]["text"].as_str().unwrap();
    assert!(
        kept.len() > 1_000_000 && kept.len() <= 1024 * 1024,
        "{}",
        kept.len()
    );
    assert!(kept.bytes().all(|byte| byte == b'x'));
    // "[the MCP tool result was truncated: CUT of its TOTAL bytes were cut (…)]"
    let marker = content[1]["text"].as_str().unwrap();
    eprintln!("the 15 MiB result's marker: {marker}");
    let words: Vec<&str> = marker.split(' ').collect();
    assert_eq!(
        marker,
        format!(
            "[the MCP tool result was truncated: {} of its {} bytes were cut (mcp_tool_output_max_bytes = 1048576)]",
            words[6], words[9]
        )
    );
    let cut: usize = words[6].parse().unwrap();
    let total: usize = words[9].parse().unwrap();
    assert!(total > 15 * 1024 * 1024, "{marker}");
    assert_eq!(cut + content[0].to_string().len(), total, "{marker}");

    // The model reads the same cut text and the marker.
    let output = tool_output(&setup.model, "call_blob");
    assert_eq!(output, format!("{kept}\n{marker}"));

    // The rollout holds the cut result only (the item and the model's input, about 1 MiB each).
    let files = rollouts(&setup.server.home);
    assert_eq!(files.len(), 1);
    let size = std::fs::metadata(&files[0]).unwrap().len();
    assert!(size < 3 * 1024 * 1024, "the rollout holds {size} bytes");
}

#[tokio::test]
async fn a_50_mib_answer_fails_the_call_at_once_and_the_server_goes_on() {
    // A timeout far above what the test tolerates: the call must not end by it.
    let mut setup = start(&env_server("tool_timeout_sec = 300")).await;
    setup.model.push_all([
        call("call_huge", "mcp__env__blob", json!({"mebibytes": 50})),
        call("call_after", "mcp__env__environment", json!({})),
        done(),
    ]);
    let messages = run_turn(&mut setup, "a huge one", Vec::new()).await;

    let item = mcp_item(&messages, "call_huge");
    assert_eq!(item["status"], "failed");
    let error = item["error"]["message"].as_str().unwrap();
    assert!(
        error.starts_with(
            "MCP server `env` sent an answer over the 16777216-byte limit of a message"
        ) && error.ends_with("; the call failed without reading it"),
        "{error}"
    );
    let duration_ms = item["durationMs"].as_i64().unwrap();
    eprintln!("the 50 MiB answer failed its call after {duration_ms} ms");
    assert!(duration_ms < 30_000, "took {duration_ms} ms");
    assert_eq!(
        tool_output(&setup.model, "call_huge"),
        format!("MCP tool call failed: {error}")
    );

    // The same connection answers the next call: the server was not started again (its
    // first `starting` may still be in the backlog; a restart would be `ready` again).
    let after = mcp_item(&messages, "call_after");
    assert_eq!(after["status"], "completed", "{after:#}");
    let statuses: Vec<&Value> = find(&messages, "mcpServer/startupStatus/updated")
        .into_iter()
        .map(|message| &message["params"]["status"])
        .collect();
    assert!(
        statuses.iter().all(|status| *status == "starting"),
        "{statuses:?}"
    );
}
