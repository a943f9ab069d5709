//! Running turns whose model calls tools: a thread on a temp workspace, the mock model's
//! tool-call responses, and a turn loop that answers the server's requests.

use std::path::Path;

use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer};

/// Config for the mock provider on `wire_api` with an approval policy and a sandbox mode.
pub fn config(base_url: &str, approval: &str, sandbox: &str, wire_api: &str) -> String {
    format!(
        "model_provider = \"mock\"\nmodel = \"mock-model\"\napproval_policy = \"{approval}\"\nsandbox_mode = \"{sandbox}\"\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"{base_url}\"\nwire_api = \"{wire_api}\"\nrequest_max_retries = 0\nstream_max_retries = 0\nstream_idle_timeout_ms = 5000\n"
    )
}

pub struct Setup {
    /// The mock model.
    pub model: MockModel,
    /// The server under test.
    pub server: TestServer,
    /// The thread the turns run on.
    pub thread_id: String,
    /// The thread's cwd.
    pub workspace: tempfile::TempDir,
}

pub async fn setup(approval: &str, sandbox: &str) -> Setup {
    setup_for_wire(approval, sandbox, "responses").await
}

pub async fn setup_for_wire(approval: &str, sandbox: &str, wire_api: &str) -> Setup {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config(&model.base_url(), approval, sandbox, wire_api),
        args: Vec::new(),
        home: None,
        cwd: None,
    })
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
    server.notification("thread/started").await;
    Setup {
        model,
        server,
        thread_id,
        workspace,
    }
}

pub fn exec(call_id: &str, cmd: &str) -> MockResponse {
    let arguments = json!({"cmd": cmd, "login": false, "yield_time_ms": 5000}).to_string();
    MockResponse::sse(responses_function_call(call_id, "exec_command", &arguments))
}

pub fn patch(call_id: &str, patch: &str) -> MockResponse {
    let arguments = json!({"input": patch}).to_string();
    MockResponse::sse(responses_function_call(call_id, "apply_patch", &arguments))
}

pub fn done() -> MockResponse {
    MockResponse::sse(responses_text("msg_done", &["done"]))
}

/// How the client answers a server request: a result body or an error object.
pub enum Answer {
    Result(Value),
    Error,
    /// Do not answer; interrupt the turn instead.
    Interrupt,
}

pub fn decision(decision: &str) -> Answer {
    Answer::Result(json!({"decision": decision}))
}

/// Starts a turn and reads every message until `turn/completed`, answering each server
/// request with the next answer.
pub async fn run_turn(setup: &mut Setup, text: &str, answers: Vec<Answer>) -> Vec<Value> {
    run_turn_with(setup, json!({}), text, answers).await
}

pub async fn run_turn_with(
    setup: &mut Setup,
    extra: Value,
    text: &str,
    answers: Vec<Answer>,
) -> Vec<Value> {
    let mut params = json!({
        "threadId": setup.thread_id,
        "input": [{"type": "text", "text": text}],
    });
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    let server = &mut setup.server;
    server.send_request("turn/start", params).await;
    let mut answers = answers.into_iter();
    let mut seen = Vec::new();
    loop {
        let message = server.next_message().await;
        let is_request = message.get("method").is_some() && message.get("id").is_some();
        let done = message.get("method") == Some(&json!("turn/completed"));
        seen.push(message.clone());
        if is_request {
            match answers.next().expect("an answer for every server request") {
                Answer::Result(result) => {
                    server
                        .send(&json!({"id": message["id"], "result": result}))
                        .await
                }
                Answer::Error => {
                    server
                        .send(&json!({"id": message["id"], "error": {"code": -32000, "message": "client failed"}}))
                        .await
                }
                Answer::Interrupt => {
                    let turn_id = message["params"]["turnId"].clone();
                    server
                        .send_request(
                            "turn/interrupt",
                            json!({"threadId": setup.thread_id, "turnId": turn_id}),
                        )
                        .await;
                }
            }
        }
        if done {
            // Every server request ends with its `serverRequest/resolved`; those withdrawn by
            // an interrupt are resolved after `turn/completed`.
            while let Some(unresolved) = unresolved_request(&seen) {
                let resolved = server
                    .take_matching(|message| {
                        message["method"] == "serverRequest/resolved"
                            && message["params"]["requestId"] == unresolved
                    })
                    .await;
                seen.push(resolved);
            }
            return seen;
        }
    }
}

/// The id of the first server request in `seen` without its `serverRequest/resolved`.
fn unresolved_request(seen: &[Value]) -> Option<Value> {
    let resolved: Vec<&Value> = seen
        .iter()
        .filter(|message| message["method"] == "serverRequest/resolved")
        .map(|message| &message["params"]["requestId"])
        .collect();
    seen.iter()
        .filter(|message| message.get("method").is_some() && message.get("id").is_some())
        .map(|message| &message["id"])
        .find(|id| !resolved.contains(id))
        .cloned()
}

pub fn find<'a>(messages: &'a [Value], method: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|message| message.get("method") == Some(&json!(method)))
        .collect()
}

pub fn completed_item<'a>(messages: &'a [Value], kind: &str) -> &'a Value {
    find(messages, "item/completed")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["type"] == kind)
        .unwrap_or_else(|| panic!("no completed {kind} item in {messages:#?}"))
}

/// The output the model got for `call_id` in its last request.
pub fn tool_output(model: &MockModel, call_id: &str) -> String {
    let requests = model.requests();
    let last = requests.last().expect("a model request");
    last["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call_output" && item["call_id"] == call_id)
        .and_then(|item| item["output"].as_str())
        .unwrap_or_else(|| panic!("no output for {call_id} in {last:#}"))
        .to_string()
}

pub fn turn_status(messages: &[Value]) -> String {
    find(messages, "turn/completed")[0]["params"]["turn"]["status"]
        .as_str()
        .unwrap()
        .to_string()
}

pub fn exists(workspace: &Path, name: &str) -> bool {
    workspace.join(name).exists()
}
