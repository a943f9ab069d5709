//! Hooks end to end through the binary: `hooks/list` with the reference's keys and hashes, a
//! hook trusted by the hash codex-cli 0.169.0 reports running in a turn (`hook/started`,
//! `hook/completed`, its context reaching the model), an edited hook not running, hooks that
//! block the input or a command or send the model back to work, and clients unable to write
//! hooks.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

/// Hooks whose hashes codex-cli 0.169.0 reported in `hooks/list` (`currentHash`), with the
/// commands exactly as configured.
const CONTEXT_HOOK: &str = "cat > ups-input.json; echo prompt-context";
const CONTEXT_HASH: &str =
    "sha256:1085c7a85fb4642acccab7a1a2e02df86b07f2427dd9ebcf223b9dfda4d69736";
const STOP_HOOK: &str = "if [ -e stop-once ]; then exit 0; fi; touch stop-once; echo '{\"decision\":\"block\",\"reason\":\"check the tests\"}'";
const STOP_HASH: &str = "sha256:3d839d056cfd346bd6e63f8b069acdaa04c707db8dd8063db804214f25baedf2";
const DENY_HOOK: &str = "echo 'no commands today' >&2; exit 2";
const DENY_HASH: &str = "sha256:db0e9115171ad8ee7eb72ba2cdd146b86fdd140caa87e64c24b1309fbb484932";
const BLOCK_PROMPT_HOOK: &str = "echo 'not that' >&2; exit 2";
const BLOCK_PROMPT_HASH: &str =
    "sha256:36f4689accc5bf303b1c7616142140f0ad8502a8e5444e29cee9feb76649e70a";

fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// A `[hooks]` table: one matcher group per `(event, matcher, command)`, each trusted with
/// `trusted` when given.
fn hooks_table(home: &Path, hooks: &[(&str, Option<&str>, &str, Option<&str>)]) -> String {
    let source = home.join("config.toml").to_string_lossy().into_owned();
    let mut text = String::new();
    let mut state = String::new();
    let mut index_of: std::collections::HashMap<&str, usize> = Default::default();
    for (event, matcher, command, trusted) in hooks {
        let index = index_of.entry(event).or_default();
        text.push_str(&format!("\n[[hooks.{event}]]\n"));
        if let Some(matcher) = matcher {
            text.push_str(&format!("matcher = {}\n", toml_string(matcher)));
        }
        text.push_str(&format!(
            "[[hooks.{event}.hooks]]\ntype = \"command\"\ncommand = {}\n",
            toml_string(command)
        ));
        if let Some(hash) = trusted {
            let label = match *event {
                "UserPromptSubmit" => "user_prompt_submit",
                "PreToolUse" => "pre_tool_use",
                "PostToolUse" => "post_tool_use",
                _ => "stop",
            };
            state.push_str(&format!(
                "\n[hooks.state.\"{source}:{label}:{index}:0\"]\ntrusted_hash = \"{hash}\"\n"
            ));
        }
        *index += 1;
    }
    text + &state
}

struct Setup {
    home: tempfile::TempDir,
    work: tempfile::TempDir,
    model: MockModel,
    server: TestServer,
    thread_id: String,
}

async fn setup(hooks: &[(&str, Option<&str>, &str, Option<&str>)]) -> Setup {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let config = format!(
        "{}\n{}",
        mock_config(&model.base_url()),
        hooks_table(home.path(), hooks)
    );
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config,
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: Some(work.path().to_path_buf()),
    })
    .await;
    server.initialize().await;
    let started = server
        .request(
            "thread/start",
            json!({"cwd": work.path().to_string_lossy(), "sandbox": "danger-full-access"}),
        )
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    Setup {
        home,
        work,
        model,
        server,
        thread_id,
    }
}

async fn turn(setup: &mut Setup, text: &str) -> Vec<Value> {
    setup
        .server
        .request(
            "turn/start",
            json!({"threadId": setup.thread_id, "input": [{"type": "text", "text": text}]}),
        )
        .await
        .unwrap();
    setup.server.until_turn_completed().await
}

fn of<'a>(messages: &'a [Value], method: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|message| message["method"] == method)
        .collect()
}

/// The texts of a model request's messages with `role`.
fn texts(request: &Value, role: &str) -> Vec<String> {
    request["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["role"] == role)
        .flat_map(|item| item["content"].as_array().unwrap().iter())
        .filter_map(|part| part["text"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn hooks_list_reports_the_references_keys_hashes_and_trust() {
    let mut setup = setup(&[
        ("UserPromptSubmit", None, CONTEXT_HOOK, Some(CONTEXT_HASH)),
        ("Stop", None, STOP_HOOK, Some("sha256:not-this-one")),
        ("PreToolUse", Some("Bash"), DENY_HOOK, None),
    ])
    .await;
    let source = setup
        .home
        .path()
        .join("config.toml")
        .to_string_lossy()
        .into_owned();
    let cwd = setup.work.path().to_string_lossy().into_owned();
    let listed = setup
        .server
        .request("hooks/list", json!({"cwds": [cwd]}))
        .await
        .unwrap();
    let hook = |key: &str,
                event: &str,
                command: &str,
                matcher: Value,
                order: i64,
                hash: &str,
                trust: &str| {
        json!({
            "key": format!("{source}:{key}"),
            "eventName": event,
            "handlerType": "command",
            "command": command,
            "async": false,
            "matcher": matcher,
            "timeoutSec": 600,
            "statusMessage": null,
            "additionalContextLimit": null,
            "sourcePath": source,
            "source": "user",
            "pluginId": null,
            "environmentId": null,
            "displayOrder": order,
            "enabled": true,
            "isManaged": false,
            "currentHash": hash,
            "trustStatus": trust,
        })
    };
    assert_eq!(
        listed,
        json!({"data": [{
            "cwd": cwd,
            "hooks": [
                hook("pre_tool_use:0:0", "preToolUse", DENY_HOOK, json!("Bash"), 0, DENY_HASH, "untrusted"),
                hook("user_prompt_submit:0:0", "userPromptSubmit", CONTEXT_HOOK, Value::Null, 1, CONTEXT_HASH, "trusted"),
                hook("stop:0:0", "stop", STOP_HOOK, Value::Null, 2, STOP_HASH, "modified"),
            ],
            "warnings": [],
            "errors": [],
        }]})
    );
    let by_thread = setup
        .server
        .request("hooks/list", json!({"threadId": setup.thread_id}))
        .await
        .unwrap();
    assert_eq!(by_thread["data"][0]["hooks"], listed["data"][0]["hooks"]);
    let error = setup
        .server
        .request(
            "hooks/list",
            json!({"threadId": "00000000-0000-0000-0000-000000000000"}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
    let error = setup
        .server
        .request("hooks/list", json!({"cwds": 3}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
}

#[tokio::test]
async fn a_hook_trusted_by_the_references_hash_runs_and_an_edited_one_does_not() {
    let mut setup = setup(&[("UserPromptSubmit", None, CONTEXT_HOOK, Some(CONTEXT_HASH))]).await;
    setup
        .model
        .push(MockResponse::sse(responses_text("msg_1", &["one"])));
    let messages = turn(&mut setup, "first").await;
    let started = of(&messages, "hook/started");
    let completed = of(&messages, "hook/completed");
    assert_eq!(started.len(), 1, "{messages:#?}");
    let source = setup
        .home
        .path()
        .join("config.toml")
        .to_string_lossy()
        .into_owned();
    let run = &completed[0]["params"]["run"];
    assert_eq!(completed[0]["params"]["threadId"], setup.thread_id.as_str());
    assert_eq!(run["id"], format!("user-prompt-submit:0:{source}"));
    assert_eq!(run["eventName"], "userPromptSubmit");
    assert_eq!(run["executionMode"], "sync");
    assert_eq!(run["scope"], "turn");
    assert_eq!(run["status"], "completed");
    assert_eq!(
        run["entries"],
        json!([{"kind": "context", "text": "prompt-context"}])
    );
    assert_eq!(started[0]["params"]["run"]["status"], "running");
    // The hook ran before the input was recorded, and its context follows the input.
    let position = |method: &str| messages.iter().position(|m| m["method"] == method).unwrap();
    assert!(position("hook/completed") < position("item/started"));
    let request = setup.model.requests()[0].clone();
    assert_eq!(
        texts(&request, "developer").last().unwrap(),
        "prompt-context"
    );
    let input: Value = serde_json::from_str(
        &std::fs::read_to_string(setup.work.path().join("ups-input.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(input["hook_event_name"], "UserPromptSubmit");
    assert_eq!(input["prompt"], "first");
    assert_eq!(input["session_id"], setup.thread_id.as_str());
    assert_eq!(input["cwd"], setup.work.path().to_string_lossy().as_ref());

    // The operator edits the command: its hash changes and it no longer runs.
    let config_path = setup.home.path().join("config.toml");
    let config = std::fs::read_to_string(&config_path).unwrap();
    std::fs::write(
        &config_path,
        config.replace("echo prompt-context", "echo edited-context"),
    )
    .unwrap();
    let listed = setup.server.request("hooks/list", json!({})).await.unwrap();
    assert_eq!(listed["data"][0]["hooks"][0]["trustStatus"], "modified");
    setup
        .model
        .push(MockResponse::sse(responses_text("msg_2", &["two"])));
    let messages = turn(&mut setup, "second").await;
    assert!(of(&messages, "hook/started").is_empty(), "{messages:#?}");
    let request = setup.model.requests()[1].clone();
    assert!(
        !texts(&request, "developer")
            .iter()
            .any(|text| text.contains("edited-context")),
        "{request:#}"
    );
}

#[tokio::test]
async fn hooks_block_the_input_or_a_command_and_send_the_model_back_to_work() {
    // A blocked input never reaches the model; the turn completes.
    let mut setup = setup(&[(
        "UserPromptSubmit",
        None,
        BLOCK_PROMPT_HOOK,
        Some(BLOCK_PROMPT_HASH),
    )])
    .await;
    let messages = turn(&mut setup, "please").await;
    let completed = of(&messages, "hook/completed");
    assert_eq!(completed[0]["params"]["run"]["status"], "blocked");
    assert_eq!(
        completed[0]["params"]["run"]["entries"],
        json!([{"kind": "feedback", "text": "not that"}])
    );
    assert!(of(&messages, "item/started").is_empty(), "{messages:#?}");
    assert_eq!(
        of(&messages, "turn/completed")[0]["params"]["turn"]["status"],
        "completed"
    );
    assert!(setup.model.requests().is_empty());

    // A command blocked before it runs; the model is told why. Then a `Stop` hook sends the
    // model back once with its reason.
    let mut setup = setup_tools().await;
    let arguments = json!({"cmd": "touch ran.txt", "yield_time_ms": 5000}).to_string();
    setup.model.push_all([
        MockResponse::sse(responses_function_call(
            "call_1",
            "exec_command",
            &arguments,
        )),
        MockResponse::sse(responses_text("msg_1", &["first answer"])),
        MockResponse::sse(responses_text("msg_2", &["tests checked"])),
    ]);
    let messages = turn(&mut setup, "work").await;
    assert!(!setup.work.path().join("ran.txt").exists());
    let runs: Vec<(String, String)> = of(&messages, "hook/completed")
        .iter()
        .map(|message| {
            let run = &message["params"]["run"];
            (
                run["eventName"].as_str().unwrap().to_owned(),
                run["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        runs,
        [
            ("preToolUse".to_owned(), "blocked".to_owned()),
            ("stop".to_owned(), "blocked".to_owned()),
            ("stop".to_owned(), "completed".to_owned()),
        ]
    );
    let pre = of(&messages, "hook/completed")[0]["params"]["run"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        pre.starts_with("pre-tool-use:0:") && pre.ends_with(":call_1"),
        "{pre}"
    );
    let requests = setup.model.requests();
    assert_eq!(requests.len(), 3);
    let output = requests[1]["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .unwrap()["output"]
        .clone();
    assert_eq!(
        output,
        "Command blocked by PreToolUse hook: no commands today. Command: touch ran.txt"
    );
    let hook_prompt = of(&messages, "item/completed")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["type"] == "hookPrompt")
        .unwrap_or_else(|| panic!("no hookPrompt item in {messages:#?}"))
        .clone();
    let stop_run = of(&messages, "hook/completed")[1]["params"]["run"]["id"].clone();
    assert_eq!(
        hook_prompt["fragments"],
        json!([{"text": "check the tests", "hookRunId": stop_run}])
    );
    assert!(hook_prompt["id"].as_str().unwrap().starts_with("msg_"));
    let prompt = texts(&requests[2], "user").last().unwrap().clone();
    assert!(
        prompt.starts_with("<hook_prompt hook_run_id=\"stop:1:")
            && prompt.ends_with("\">check the tests</hook_prompt>"),
        "{prompt}"
    );
    assert_eq!(
        of(&messages, "turn/completed")[0]["params"]["turn"]["status"],
        "completed"
    );
}

async fn setup_tools() -> Setup {
    setup(&[
        ("PreToolUse", Some("Bash"), DENY_HOOK, Some(DENY_HASH)),
        ("Stop", None, STOP_HOOK, Some(STOP_HASH)),
    ])
    .await
}

#[tokio::test]
async fn clients_cannot_write_hooks_even_when_every_key_is_allowed() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let config = format!(
        "{}\n[clients]\nallow_client_config = \"all\"\n",
        mock_config(&model.base_url())
    );
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config,
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    for (key, value) in [
        (
            "hooks.state",
            json!({"x:stop:0:0": {"trusted_hash": "sha256:0"}}),
        ),
        (
            "hooks.Stop",
            json!([{"hooks": [{"type": "command", "command": "touch pwned"}]}]),
        ),
    ] {
        let error = server
            .request(
                "config/value/write",
                json!({"keyPath": key, "value": value, "mergeStrategy": "replace"}),
            )
            .await
            .unwrap_err();
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("hooks come only from the operator"),
            "{error}"
        );
    }
    let written = std::fs::read_to_string(home.path().join("config.toml")).unwrap();
    assert!(!written.contains("hooks"), "{written}");
}

#[tokio::test]
async fn a_post_tool_use_hook_sees_the_output_and_its_reason_reaches_the_model() {
    const POST_HOOK: &str =
        "cat > post-input.json; echo '{\"decision\":\"block\",\"reason\":\"output looked wrong\"}'";
    let mut setup = setup(&[("PostToolUse", Some("Bash"), POST_HOOK, None)]).await;
    // Trust the hook by the hash `hooks/list` reports, as an operator would.
    let listed = setup.server.request("hooks/list", json!({})).await.unwrap();
    let hook = &listed["data"][0]["hooks"][0];
    assert_eq!(hook["trustStatus"], "untrusted");
    let config_path = setup.home.path().join("config.toml");
    let mut config = std::fs::read_to_string(&config_path).unwrap();
    config.push_str(&format!(
        "\n[hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
        hook["key"].as_str().unwrap(),
        hook["currentHash"].as_str().unwrap()
    ));
    std::fs::write(&config_path, config).unwrap();

    let arguments = json!({"cmd": "echo from-the-command", "yield_time_ms": 5000}).to_string();
    setup.model.push_all([
        MockResponse::sse(responses_function_call(
            "call_9",
            "exec_command",
            &arguments,
        )),
        MockResponse::sse(responses_text("msg_1", &["done"])),
    ]);
    let messages = turn(&mut setup, "run it").await;
    let completed = of(&messages, "hook/completed");
    assert_eq!(completed.len(), 1, "{messages:#?}");
    assert_eq!(completed[0]["params"]["run"]["eventName"], "postToolUse");
    assert_eq!(completed[0]["params"]["run"]["status"], "blocked");
    let input: Value = serde_json::from_str(
        &std::fs::read_to_string(setup.work.path().join("post-input.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(
        input["tool_input"],
        json!({"command": "echo from-the-command"})
    );
    assert_eq!(input["tool_use_id"], "call_9");
    assert!(
        input["tool_response"]
            .as_str()
            .unwrap()
            .contains("from-the-command"),
        "{input}"
    );
    let request = setup.model.requests()[1].clone();
    let position = |predicate: &dyn Fn(&Value) -> bool| {
        request["input"]
            .as_array()
            .unwrap()
            .iter()
            .position(predicate)
            .unwrap_or_else(|| panic!("{request:#}"))
    };
    let output = position(&|item| item["type"] == "function_call_output");
    let feedback = position(&|item| {
        item["role"] == "developer" && item["content"][0]["text"] == "output looked wrong"
    });
    assert!(output < feedback, "{request:#}");
}

#[tokio::test]
async fn a_clients_config_overrides_add_no_hook_even_when_every_key_is_allowed() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let config = format!(
        "{}\n[clients]\nallow_client_config = \"all\"\n",
        mock_config(&model.base_url())
    );
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config,
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: Some(work.path().to_path_buf()),
    })
    .await;
    server.initialize().await;
    // The override names the hook and trusts it with the very key and hash a configured hook
    // would have: neither counts, since hooks are read from config.toml itself.
    let source = home
        .path()
        .join("config.toml")
        .to_string_lossy()
        .into_owned();
    let started = server
        .request(
            "thread/start",
            json!({
                "cwd": work.path().to_string_lossy(),
                "config": {
                    "hooks": {
                        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": CONTEXT_HOOK}]}],
                        "state": {format!("{source}:user_prompt_submit:0:0"): {"trusted_hash": CONTEXT_HASH}},
                    },
                },
            }),
        )
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    model.push(MockResponse::sse(responses_text("msg_1", &["one"])));
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    assert!(of(&messages, "hook/started").is_empty(), "{messages:#?}");
    assert!(!work.path().join("ups-input.json").exists());
    let listed = server.request("hooks/list", json!({})).await.unwrap();
    assert_eq!(listed["data"][0]["hooks"], json!([]));
}
