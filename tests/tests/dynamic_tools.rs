//! Client-provided tools through the real binary and the mock model: `thread/start.dynamicTools`
//! offered to the model (namespaced tools under `<namespace>__<tool>`), the model's call run by
//! the client as `item/tool/call` inside a `dynamicToolCall` item, the answer (capped) passed to
//! the model, failed and interrupted calls, the tools kept across a restart, and the declarations
//! refused at `thread/start`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{
    Answer, Setup, completed_item, config, done, find, run_turn, tool_output, turn_status,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call};
use tandem_tests::server::{SpawnOptions, TestServer};

fn declared_tools() -> Value {
    json!([
        {"type": "function", "name": "lookup", "description": "Looks a word up",
         "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}}},
        {"type": "namespace", "name": "crm", "description": "The CRM", "tools": [
            {"type": "function", "name": "find", "description": "Finds a customer",
             "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}
        ]}
    ])
}

async fn spawn(model: &MockModel, home: Option<std::path::PathBuf>) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config(&model.base_url(), "never", "read-only", "responses"),
        args: Vec::new(),
        home,
        cwd: None,
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    server
}

async fn setup_with_tools(tools: Value) -> Setup {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = spawn(&model, None).await;
    let result = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap(), "dynamicTools": tools}),
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

fn call(call_id: &str, name: &str, arguments: Value) -> MockResponse {
    MockResponse::sse(responses_function_call(
        call_id,
        name,
        &arguments.to_string(),
    ))
}

fn offered(request: &Value) -> Vec<(String, Value)> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap_or("").to_string(),
                tool["parameters"].clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_namespaced_tool_runs_on_the_client_and_its_answer_reaches_the_model() {
    let mut setup = setup_with_tools(declared_tools()).await;
    setup.model.push_all([
        call("call_find", "crm__find", json!({"name": "Ada"})),
        done(),
    ]);
    let answer = json!({"contentItems": [{"type": "inputText", "text": "Ada Lovelace, London"}],
                        "success": true});
    let messages = run_turn(&mut setup, "find Ada", vec![Answer::Result(answer)]).await;
    assert_eq!(turn_status(&messages), "completed");

    let offered = offered(&setup.model.requests()[0]);
    let lookup = offered
        .iter()
        .find(|(name, _)| name == "lookup")
        .expect("lookup offered");
    assert_eq!(lookup.1["properties"]["word"]["type"], "string");
    assert!(
        offered.iter().any(|(name, _)| name == "crm__find"),
        "{offered:?}"
    );

    let turn_id = find(&messages, "turn/started")[0]["params"]["turn"]["id"].clone();
    let started = find(&messages, "item/started")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["type"] == "dynamicToolCall")
        .expect("the call's item started");
    assert_eq!(
        (
            started["id"].clone(),
            started["namespace"].clone(),
            started["tool"].clone(),
            started["status"].clone(),
            started["arguments"].clone()
        ),
        (
            json!("call_find"),
            json!("crm"),
            json!("find"),
            json!("inProgress"),
            json!({"name": "Ada"})
        )
    );
    let request = messages
        .iter()
        .find(|message| message["method"] == "item/tool/call")
        .expect("the client was asked to run the tool");
    assert_eq!(
        request["params"],
        json!({"threadId": setup.thread_id, "turnId": turn_id, "callId": "call_find",
               "namespace": "crm", "tool": "find", "arguments": {"name": "Ada"}})
    );
    let resolved = find(&messages, "serverRequest/resolved");
    assert_eq!(resolved.len(), 1);
    assert_eq!(resolved[0]["params"]["requestId"], request["id"]);

    let item = completed_item(&messages, "dynamicToolCall");
    assert_eq!(item["status"], "completed");
    assert_eq!(item["success"], true);
    assert_eq!(
        item["contentItems"],
        json!([{"type": "inputText", "text": "Ada Lovelace, London"}])
    );
    assert!(item["durationMs"].as_i64().is_some(), "{item}");
    assert_eq!(
        tool_output(&setup.model, "call_find"),
        "Ada Lovelace, London"
    );
}

#[tokio::test]
async fn failed_and_refused_answers_fail_the_call_and_the_turn_goes_on() {
    let mut setup = setup_with_tools(declared_tools()).await;
    setup.model.push_all([
        call("call_1", "lookup", json!({"word": "x"})),
        call("call_2", "lookup", json!({"word": "y"})),
        call("call_3", "lookup", json!({"word": "z"})),
        done(),
    ]);
    let messages = run_turn(
        &mut setup,
        "look up",
        vec![
            Answer::Result(
                json!({"contentItems": [{"type": "inputText", "text": "no such word"}],
                                  "success": false}),
            ),
            Answer::Error,
            Answer::Result(json!({"decision": "accept"})),
        ],
    )
    .await;
    assert_eq!(turn_status(&messages), "completed");
    let items: Vec<&Value> = find(&messages, "item/completed")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .filter(|item| item["type"] == "dynamicToolCall")
        .collect();
    let statuses: Vec<(&Value, &Value)> = items
        .iter()
        .map(|item| (&item["status"], &item["success"]))
        .collect();
    assert_eq!(statuses, [(&json!("failed"), &json!(false)); 3].to_vec());
    assert_eq!(tool_output(&setup.model, "call_1"), "no such word");
    assert_eq!(
        tool_output(&setup.model, "call_2"),
        "the client could not run the tool: client failed"
    );
    let undecodable = tool_output(&setup.model, "call_3");
    assert!(
        undecodable.starts_with(
            "the client could not run the tool: the client's answer could not be read"
        ),
        "{undecodable}"
    );
}

#[tokio::test]
async fn an_answer_over_the_cap_is_cut_before_the_model_and_the_item() {
    let mut setup = setup_with_tools(declared_tools()).await;
    setup
        .model
        .push_all([call("call_big", "lookup", json!({})), done()]);
    let big = "a".repeat(2 * 1024 * 1024);
    let answer = json!({"contentItems": [{"type": "inputText", "text": big},
                                         {"type": "inputText", "text": "after"}],
                        "success": true});
    let messages = run_turn(&mut setup, "big", vec![Answer::Result(answer)]).await;
    let item = completed_item(&messages, "dynamicToolCall");
    let texts: Vec<&str> = item["contentItems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|content| content["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 2, "the cut text and the note");
    assert_eq!(texts[0].len(), 1024 * 1024);
    assert_eq!(
        texts[1],
        "[the tool output was truncated: 1048581 of its 2097157 bytes were cut (at most 1048576 are kept)]"
    );
    let output = tool_output(&setup.model, "call_big");
    assert!(output.len() < 1024 * 1024 + 200, "{}", output.len());
    assert!(output.ends_with("(at most 1048576 are kept)]"));
}

#[tokio::test]
async fn an_interrupt_withdraws_the_call_and_ends_the_turn() {
    let mut setup = setup_with_tools(declared_tools()).await;
    setup
        .model
        .push_all([call("call_wait", "lookup", json!({"word": "w"}))]);
    let messages = run_turn(&mut setup, "wait", vec![Answer::Interrupt]).await;
    assert_eq!(turn_status(&messages), "interrupted");
    let item = completed_item(&messages, "dynamicToolCall");
    assert_eq!(item["status"], "failed");
    assert_eq!(
        item["contentItems"],
        json!([{"type": "inputText", "text": "the tool call was interrupted"}])
    );
}

#[tokio::test]
async fn declared_tools_are_kept_when_the_thread_is_resumed_by_a_new_server() {
    let model = MockModel::start().await;
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut server = spawn(&model, Some(home.path().to_path_buf())).await;
    let result = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap(), "dynamicTools": declared_tools()}),
        )
        .await
        .unwrap();
    let thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    model.push(done());
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    server.shutdown().await;

    let mut server = spawn(&model, Some(home.path().to_path_buf())).await;
    server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    model.push(done());
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "again"}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    let requests = model.requests();
    let names: Vec<String> = offered(requests.last().unwrap())
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| name == "lookup" || name == "crm__find")
        .collect();
    assert_eq!(names, ["lookup", "crm__find"]);
}

#[tokio::test]
async fn bad_declarations_are_refused_with_the_reason() {
    let model = MockModel::start().await;
    let mut server = spawn(&model, None).await;
    let function = |name: &str| json!({"type": "function", "name": name, "description": "d", "inputSchema": {"type": "object"}});
    let cases = [
        (
            json!([function("a"), function("a")]),
            "duplicate dynamic tool name: a",
        ),
        (
            json!([function("bad name!")]),
            "dynamic tool name must match ^[a-zA-Z0-9_-]+$ to match Responses API: bad name!",
        ),
        (
            json!([function("apply_patch")]),
            "dynamic tool name is reserved: apply_patch",
        ),
        (
            json!([{"type": "function", "name": "x", "description": "d", "inputSchema": null}]),
            "dynamic tool input schema is not supported for x: it must be a JSON object",
        ),
        (
            json!([{"type": "namespace", "name": "ns", "description": "d", "tools": []}]),
            "dynamic tool namespace must contain at least one tool: ns",
        ),
    ];
    for (tools, message) in cases {
        let error = server
            .request("thread/start", json!({"dynamicTools": tools}))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            json!({"code": -32600, "message": message}),
            "{tools}"
        );
    }
    let error = server
        .request("thread/start", json!({"dynamicTools": {}}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("invalid type: map, expected a sequence"),
        "{error}"
    );

    let mut plain = TestServer::spawn(&config(
        &model.base_url(),
        "never",
        "read-only",
        "responses",
    ))
    .await;
    plain.initialize().await;
    let error = plain
        .request("thread/start", json!({"dynamicTools": [function("a")]}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "thread/start.dynamicTools requires experimentalApi capability"})
    );
}
