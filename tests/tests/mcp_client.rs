//! Tandem as an MCP client, end to end through the app-server protocol, against real
//! third-party servers: the npm reference "everything" server (stdio and streamable HTTP), a
//! server written with the official Python SDK, and `tandem mcp-server` itself.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::mcp_servers::{everything_http, everything_stdio, python_stdio, toml_string};
use common::tool_turns::{Answer, completed_item, config, done, find, run_turn, tool_output};
use serde_json::{Value, json};
use tandem_tests::mock_model::{
    MockModel, MockResponse, chat_text, chat_tool_call, responses_function_call,
};
use tandem_tests::process::wait_for_exit;
use tandem_tests::server::{SpawnOptions, TestServer, tandem_binary};

struct Client {
    setup: common::tool_turns::Setup,
}

/// A server with the mock model and `mcp_config` appended, initialized, with a thread whose
/// MCP servers are all `ready` (their startup notifications are consumed).
async fn start(approval: &str, mcp_config: &str, ready: &[&str]) -> Client {
    start_on_wire("responses", approval, mcp_config, ready).await
}

/// [`start`] with the mock provider speaking `wire_api`.
async fn start_on_wire(wire_api: &str, approval: &str, mcp_config: &str, ready: &[&str]) -> Client {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config(&model.base_url(), approval, "read-only", wire_api) + mcp_config,
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
    for name in ready {
        wait_status(&mut server, name, "ready").await;
    }
    Client {
        setup: common::tool_turns::Setup {
            model,
            server,
            thread_id,
            workspace,
        },
    }
}

/// Waits for `mcpServer/startupStatus/updated` of `name` with `status`.
async fn wait_status(server: &mut TestServer, name: &str, status: &str) -> Value {
    let message = server
        .take_matching(|message| {
            message["method"] == "mcpServer/startupStatus/updated"
                && message["params"]["name"] == name
                && (message["params"]["status"] == status
                    || message["params"]["status"] == "failed")
        })
        .await;
    assert_eq!(message["params"]["status"], status, "{message:#}");
    message["params"].clone()
}

fn mcp_call(call_id: &str, name: &str, arguments: Value) -> MockResponse {
    MockResponse::sse(responses_function_call(
        call_id,
        name,
        &arguments.to_string(),
    ))
}

fn mcp_item<'a>(messages: &'a [Value], method: &str, call_id: &str) -> &'a Value {
    find(messages, method)
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["type"] == "mcpToolCall" && item["id"] == call_id)
        .unwrap_or_else(|| panic!("no {method} mcpToolCall {call_id} in {messages:#?}"))
}

/// The Python SDK returns a tool's `str` as structured content `{"result": …}`.
fn python_result(output: &str) -> String {
    let value: Value = serde_json::from_str(output).unwrap_or_else(|_| panic!("{output}"));
    value["result"]
        .as_str()
        .unwrap_or_else(|| panic!("no result in {output}"))
        .to_string()
}

fn turn_status(messages: &[Value]) -> String {
    find(messages, "turn/completed")[0]["params"]["turn"]["status"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn everything_over_stdio_offers_its_tools_and_returns_structured_content() {
    let mut client = start("never", &everything_stdio(""), &["everything"]).await;
    let setup = &mut client.setup;

    let status = setup
        .server
        .request("mcpServerStatus/list", json!({"threadId": setup.thread_id}))
        .await
        .unwrap();
    let everything = &status["data"][0];
    assert_eq!(everything["name"], "everything");
    assert_eq!(everything["startupStatus"], "ready");
    assert_eq!(everything["authStatus"], "unsupported");
    assert!(
        everything["tools"]["echo"]["inputSchema"].is_object(),
        "{status:#}"
    );
    assert!(everything["tools"]["get-structured-content"].is_object());

    setup.model.push_all([
        mcp_call(
            "call_weather",
            "mcp__everything__get-structured-content",
            json!({"location": "Chicago"}),
        ),
        done(),
    ]);
    let messages = run_turn(setup, "weather?", Vec::new()).await;
    assert_eq!(turn_status(&messages), "completed");

    let started = mcp_item(&messages, "item/started", "call_weather");
    assert_eq!(started["status"], "inProgress");
    assert_eq!(started["server"], "everything");
    assert_eq!(started["tool"], "get-structured-content");
    assert_eq!(started["arguments"], json!({"location": "Chicago"}));
    assert_eq!(started["readOnlyHint"], true);
    let completed = mcp_item(&messages, "item/completed", "call_weather");
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["result"]["structuredContent"]["temperature"], 36);
    assert!(completed["durationMs"].as_i64().is_some());
    assert_eq!(completed["error"], Value::Null);

    // The model was offered the tools under their qualified names, with object schemas, and
    // read the structured result in the next request.
    let requests = setup.model.requests();
    let tools = requests[0]["tools"].as_array().unwrap();
    let echo = tools
        .iter()
        .find(|tool| tool["name"] == "mcp__everything__echo")
        .unwrap_or_else(|| panic!("echo not offered: {tools:#?}"));
    assert_eq!(echo["parameters"]["type"], "object");
    let output: Value = serde_json::from_str(&tool_output(&setup.model, "call_weather")).unwrap();
    assert_eq!(output["conditions"], "Light rain / drizzle");
}

#[tokio::test]
async fn an_mcp_tool_call_works_over_the_chat_completions_wire() {
    let mut client = start_on_wire("chat", "never", &everything_stdio(""), &["everything"]).await;
    let setup = &mut client.setup;
    let arguments = json!({"message": "over chat"}).to_string();
    setup.model.push_all([
        MockResponse::sse(chat_tool_call(
            "call_echo",
            "mcp__everything__echo",
            &arguments,
        )),
        MockResponse::sse(chat_text(&["done"])),
    ]);
    let messages = run_turn(setup, "echo it", Vec::new()).await;
    assert_eq!(turn_status(&messages), "completed");

    let started = mcp_item(&messages, "item/started", "call_echo");
    assert_eq!(started["server"], "everything");
    assert_eq!(started["tool"], "echo");
    assert_eq!(started["arguments"], json!({"message": "over chat"}));
    let completed = mcp_item(&messages, "item/completed", "call_echo");
    assert_eq!(completed["status"], "completed");
    assert_eq!(
        completed["result"]["content"][0]["text"], "Echo: over chat",
        "{completed:#}"
    );

    // The tool was offered as a Chat Completions function with an object schema, and its
    // result went back as a `tool` message answering the call.
    let requests = setup.model.requests();
    let tools = requests[0]["tools"].as_array().unwrap();
    let echo = tools
        .iter()
        .find(|tool| tool["function"]["name"] == "mcp__everything__echo")
        .unwrap_or_else(|| panic!("echo not offered: {tools:#?}"));
    assert_eq!(echo["type"], "function");
    assert_eq!(echo["function"]["parameters"]["type"], "object");
    let messages = requests[1]["messages"].as_array().unwrap();
    let call = messages
        .iter()
        .find(|message| message["role"] == "assistant" && message["tool_calls"].is_array())
        .unwrap_or_else(|| panic!("no assistant tool call in {messages:#?}"));
    assert_eq!(
        call["tool_calls"][0]["function"]["name"],
        "mcp__everything__echo"
    );
    let output = messages
        .iter()
        .find(|message| message["role"] == "tool" && message["tool_call_id"] == "call_echo")
        .unwrap_or_else(|| panic!("no tool message in {messages:#?}"));
    assert_eq!(output["content"], "Echo: over chat");
}

#[tokio::test]
async fn everything_over_streamable_http() {
    let (_everything, port) = everything_http().await;
    let mcp = format!(
        "\n[mcp_servers.remote]\nurl = \"http://127.0.0.1:{port}/mcp\"\nhttp_headers = {{ \"X-Test\" = \"1\" }}\n"
    );
    let mut client = start("never", &mcp, &["remote"]).await;
    let setup = &mut client.setup;
    setup.model.push_all([
        mcp_call(
            "call_echo",
            "mcp__remote__echo",
            json!({"message": "over http"}),
        ),
        done(),
    ]);
    let messages = run_turn(setup, "echo", Vec::new()).await;
    let completed = mcp_item(&messages, "item/completed", "call_echo");
    assert_eq!(completed["status"], "completed");
    assert!(
        tool_output(&setup.model, "call_echo").contains("over http"),
        "{completed:#}"
    );
}

#[tokio::test]
async fn python_sdk_server_errors_crashes_and_timeouts_fail_only_their_items() {
    let mut client = start("never", &python_stdio("tool_timeout_sec = 3"), &["py"]).await;
    let setup = &mut client.setup;

    // A call with structured output, a tool error, a crash mid-call, a call after the crash
    // (the server is started again) and a call that never answers, in one turn.
    setup.model.push_all([
        mcp_call("call_add", "mcp__py__add", json!({"a": 2, "b": 40})),
        mcp_call("call_fail", "mcp__py__fail", json!({"reason": "testing"})),
        mcp_call("call_pid_before", "mcp__py__pid", json!({})),
        mcp_call("call_crash", "mcp__py__crash", json!({})),
        mcp_call("call_pid_after", "mcp__py__pid", json!({})),
        mcp_call("call_hang", "mcp__py__hang", json!({})),
        done(),
    ]);
    let messages = run_turn(setup, "go", Vec::new()).await;
    assert_eq!(turn_status(&messages), "completed");

    let add = mcp_item(&messages, "item/completed", "call_add");
    assert_eq!(add["status"], "completed");
    assert_eq!(add["result"]["structuredContent"], json!({"sum": 42}));
    assert_eq!(tool_output(&setup.model, "call_add"), r#"{"sum":42}"#);

    let fail = mcp_item(&messages, "item/completed", "call_fail");
    assert_eq!(fail["status"], "completed");
    let output = tool_output(&setup.model, "call_fail");
    assert!(
        output.starts_with("MCP tool error:") && output.contains("failed on purpose: testing"),
        "{output}"
    );

    let crash = mcp_item(&messages, "item/completed", "call_crash");
    assert_eq!(crash["status"], "failed");
    assert!(
        crash["error"]["message"]
            .as_str()
            .unwrap()
            .contains("closed the connection"),
        "{crash:#}"
    );
    let before = python_result(&tool_output(&setup.model, "call_pid_before"));
    let after = python_result(&tool_output(&setup.model, "call_pid_after"));
    let after: u32 = after.parse().unwrap();
    assert_ne!(before, after.to_string(), "the server was started again");
    let statuses: Vec<&Value> = find(&messages, "mcpServer/startupStatus/updated")
        .into_iter()
        .map(|message| &message["params"]["status"])
        .collect();
    assert!(
        statuses.ends_with(&[&json!("failed"), &json!("starting"), &json!("ready")]),
        "{statuses:?}"
    );

    let hang = mcp_item(&messages, "item/completed", "call_hang");
    assert_eq!(hang["status"], "failed");
    assert!(
        hang["error"]["message"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{hang:#}"
    );
    assert!(hang["durationMs"].as_i64().unwrap() >= 3000);

    // Shutting down leaves no server process behind.
    let server = client.setup.server;
    assert_eq!(server.shutdown().await, Some(0));
    wait_for_exit(after).await;
}

#[tokio::test]
async fn elicitation_reaches_the_client_and_its_answer_the_server() {
    let mut client = start("never", &python_stdio(""), &["py"]).await;
    let setup = &mut client.setup;
    setup
        .model
        .push_all([mcp_call("call_ask", "mcp__py__ask", json!({})), done()]);
    let answer = json!({"action": "accept", "content": {"colour": "green"}, "_meta": null});
    let messages = run_turn(setup, "ask me", vec![Answer::Result(answer)]).await;
    let request = find(&messages, "mcpServer/elicitation/request")[0];
    let params = &request["params"];
    assert_eq!(params["threadId"], json!(setup.thread_id));
    assert!(params["turnId"].is_string());
    assert_eq!(params["serverName"], "py");
    assert_eq!(params["mode"], "form");
    assert_eq!(params["message"], "What is your favourite colour?");
    assert_eq!(
        params["requestedSchema"]["properties"]["colour"]["type"],
        "string"
    );
    assert!(!find(&messages, "serverRequest/resolved").is_empty());
    assert_eq!(
        python_result(&tool_output(&setup.model, "call_ask")),
        "favourite colour: green"
    );
}

#[tokio::test]
async fn approvals_follow_the_policy_and_trust() {
    // on-request: toggle-simulated-logging is not read-only, so the user is asked, and a
    // decline fails the item; echo is read-only and runs without asking.
    let mut client = start("on-request", &everything_stdio(""), &["everything"]).await;
    let setup = &mut client.setup;
    setup.model.push_all([
        mcp_call(
            "call_toggle",
            "mcp__everything__toggle-simulated-logging",
            json!({}),
        ),
        mcp_call(
            "call_read",
            "mcp__everything__echo",
            json!({"message": "hi"}),
        ),
        done(),
    ]);
    let decline = json!({"action": "decline", "content": null, "_meta": null});
    let messages = run_turn(setup, "echo", vec![Answer::Result(decline)]).await;
    let requests = find(&messages, "mcpServer/elicitation/request");
    assert_eq!(requests.len(), 1, "only the non-read-only tool asks");
    let params = &requests[0]["params"];
    assert_eq!(params["_meta"]["tandem/approvalKind"], "mcpToolCall");
    assert_eq!(params["_meta"]["tool"], "toggle-simulated-logging");
    assert_eq!(params["serverName"], "everything");
    let toggle = mcp_item(&messages, "item/completed", "call_toggle");
    assert_eq!(toggle["status"], "failed");
    assert_eq!(
        toggle["error"]["message"],
        "the user declined this MCP tool call"
    );
    assert_eq!(
        mcp_item(&messages, "item/completed", "call_read")["status"],
        "completed"
    );

    // A trusted tool never asks.
    let mut client = start(
        "untrusted",
        &everything_stdio("trusted_tools = [\"echo\"]"),
        &["everything"],
    )
    .await;
    let setup = &mut client.setup;
    setup.model.push_all([
        mcp_call(
            "call_echo",
            "mcp__everything__echo",
            json!({"message": "hi"}),
        ),
        done(),
    ]);
    let messages = run_turn(setup, "echo", Vec::new()).await;
    assert!(find(&messages, "mcpServer/elicitation/request").is_empty());
    assert_eq!(
        completed_item(&messages, "mcpToolCall")["status"],
        "completed"
    );
}

#[tokio::test]
async fn tandem_mcp_server_is_a_server_of_another_tandem() {
    let inner_home = tempfile::tempdir().unwrap();
    std::fs::write(inner_home.path().join("config.toml"), "").unwrap();
    let mcp = format!(
        "\n[mcp_servers.inner]\ncommand = {}\nargs = [\"mcp-server\"]\nenv = {{ TANDEM_HOME = {} }}\nenabled_tools = [\"codex\", \"codex-reply\", \"search\"]\n",
        toml_string(&tandem_binary().to_string_lossy()),
        toml_string(&inner_home.path().to_string_lossy()),
    );
    let mut client = start("never", &mcp, &["inner"]).await;
    let setup = &mut client.setup;
    let status = setup
        .server
        .request("mcpServerStatus/list", json!({}))
        .await
        .unwrap();
    let tools: Vec<&String> = status["data"][0]["tools"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(tools, ["codex", "codex-reply", "search"]);

    // A call reaches the inner Tandem: an empty history search answers with no hits.
    setup.model.push_all([
        mcp_call(
            "call_search",
            "mcp__inner__search",
            json!({"query": "nothing here"}),
        ),
        done(),
    ]);
    let messages = run_turn(setup, "search", Vec::new()).await;
    let search = mcp_item(&messages, "item/completed", "call_search");
    assert_eq!(search["status"], "completed", "{search:#}");
}

#[tokio::test]
async fn a_server_that_cannot_start_is_reported_and_the_turn_runs_without_it() {
    let mcp = "\n[mcp_servers.broken]\ncommand = \"/nonexistent/mcp-server\"\n\n[mcp_servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nbearer_token_env_var = \"TANDEM_TEST_UNSET_TOKEN\"\n";
    let mut client = start("never", mcp, &[]).await;
    let setup = &mut client.setup;
    let broken = wait_status(&mut setup.server, "broken", "failed").await;
    assert!(
        broken["error"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/mcp-server"),
        "{broken:#}"
    );
    let remote = wait_status(&mut setup.server, "remote", "failed").await;
    assert!(
        remote["error"]
            .as_str()
            .unwrap()
            .contains("TANDEM_TEST_UNSET_TOKEN"),
        "{remote:#}"
    );
    setup.model.push(done());
    let messages = run_turn(setup, "hello", Vec::new()).await;
    assert_eq!(turn_status(&messages), "completed");
}
