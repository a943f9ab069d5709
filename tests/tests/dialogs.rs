//! The structured dialogs through the real binary and the mock model: `tool/requestUserInput`
//! (chosen at `initialize`), `agent/requestUserInput` (`ask_user`, plan mode) and
//! `agent/askUserQuestion` (`ask_user_question`), each answered, cancelled with a JSON-RPC
//! error, and answered wrongly; which tools the model is offered; and `tandem run` answering
//! them from stdin.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{Answer, Setup, config, done, find, run_turn_with, tool_output};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call};
use tandem_tests::server::{SpawnOptions, TestServer};

async fn setup_with(capabilities: Value, extra_config: &str) -> Setup {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: format!(
            "{extra_config}{}",
            config(&model.base_url(), "never", "read-only", "responses")
        ),
        args: Vec::new(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize_with(capabilities).await;
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

fn call(call_id: &str, tool: &str, arguments: Value) -> MockResponse {
    MockResponse::sse(responses_function_call(
        call_id,
        tool,
        &arguments.to_string(),
    ))
}

fn plan_mode() -> Value {
    json!({"collaborationMode": {"mode": "plan", "settings": {"model": "mock-model"}}})
}

fn default_mode() -> Value {
    json!({"collaborationMode": {"mode": "default", "settings": {"model": "mock-model"}}})
}

/// Tool names offered in model request `index`.
fn offered_tools(model: &MockModel, index: usize) -> Vec<String> {
    model.requests()[index]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

fn server_requests<'a>(messages: &'a [Value], method: &str) -> Vec<&'a Value> {
    find(messages, method)
        .into_iter()
        .filter(|message| message.get("id").is_some())
        .collect()
}

fn turn_id(messages: &[Value]) -> Value {
    find(messages, "turn/started")[0]["params"]["turn"]["id"].clone()
}

#[tokio::test]
async fn tool_request_user_input_is_sent_when_the_client_chose_it() {
    let mut setup = setup_with(
        json!({"experimentalApi": true, "requestUserInputMethod": "tool/requestUserInput"}),
        "",
    )
    .await;
    let question = json!({"questions": [
        {"id": "confirm_path", "header": "Confirm", "question": "Proceed?", "options": [
            {"label": "Yes (Recommended)", "description": "Go."},
            {"label": "No", "description": "Stop."}]},
        {"id": "color", "header": "Color", "question": "Which color?", "options": [
            {"label": "Red", "description": "Warm."}, {"label": "Blue", "description": "Cool."}]}
    ]});
    setup.model.push_all([
        call("call_q", "request_user_input", question.clone()),
        done(),
    ]);
    let answer = json!({"answers": [
        {"questionIndex": 0, "selected": ["Yes (Recommended)"]},
        {"questionIndex": 1, "selected": ["something else"]}
    ]});
    let messages =
        run_turn_with(&mut setup, plan_mode(), "ask", vec![Answer::Result(answer)]).await;
    assert!(server_requests(&messages, "item/tool/requestUserInput").is_empty());
    let request = server_requests(&messages, "tool/requestUserInput")[0];
    assert_eq!(
        request["params"],
        json!({
            "threadId": setup.thread_id,
            "turnId": turn_id(&messages),
            "toolCallId": "call_q",
            "questions": [
                {"text": "Proceed?", "options": ["Yes (Recommended)", "No"], "isOther": true},
                {"text": "Which color?", "options": ["Red", "Blue"], "isOther": true}
            ]
        })
    );
    // The model gets the answers keyed by its question ids, as with the reference's shape.
    let output: Value = serde_json::from_str(&tool_output(&setup.model, "call_q")).unwrap();
    assert_eq!(
        output,
        json!({"answers": {
            "confirm_path": {"answers": ["Yes (Recommended)"]},
            "color": {"answers": ["something else"]}
        }})
    );
    let resolved = find(&messages, "serverRequest/resolved");
    assert_eq!(resolved[0]["params"]["requestId"], request["id"]);

    // A JSON-RPC error completes the call with an error the model sees; the turn goes on.
    setup.model.push_all([
        call("call_q2", "request_user_input", question.clone()),
        done(),
    ]);
    let messages = run_turn_with(&mut setup, plan_mode(), "again", vec![Answer::Error]).await;
    assert_eq!(
        find(&messages, "turn/completed")[0]["params"]["turn"]["status"],
        "completed"
    );
    assert_eq!(
        tool_output(&setup.model, "call_q2"),
        "request_user_input failed: the user did not answer (client failed)"
    );

    // An answer to a question that was not asked fails the call.
    setup
        .model
        .push_all([call("call_q3", "request_user_input", question), done()]);
    let wrong = json!({"answers": [{"questionIndex": 5, "selected": ["Red"]}]});
    run_turn_with(
        &mut setup,
        plan_mode(),
        "wrong",
        vec![Answer::Result(wrong)],
    )
    .await;
    assert_eq!(
        tool_output(&setup.model, "call_q3"),
        "request_user_input failed: the user did not answer (the client answered question 5 but only 2 were asked)"
    );
}

#[tokio::test]
async fn ask_user_asks_for_free_text_in_plan_mode_only() {
    let mut setup = setup_with(json!({"experimentalApi": true}), "").await;
    setup.model.push_all([
        call(
            "call_t",
            "ask_user",
            json!({"prompt": "What is the deadline?"}),
        ),
        done(),
    ]);
    let messages = run_turn_with(
        &mut setup,
        plan_mode(),
        "plan it",
        vec![Answer::Result(json!({"userInput": "Friday"}))],
    )
    .await;
    assert!(offered_tools(&setup.model, 0).contains(&"ask_user".to_string()));
    let request = server_requests(&messages, "agent/requestUserInput")[0];
    assert_eq!(
        request["params"],
        json!({
            "threadId": setup.thread_id,
            "turnId": turn_id(&messages),
            "toolCallId": "call_t",
            "prompt": "What is the deadline?"
        })
    );
    assert!(
        messages
            .iter()
            .any(|message| message["params"]["status"]["activeFlags"]
                == json!(["waitingOnUserInput"]))
    );
    assert_eq!(
        tool_output(&setup.model, "call_t"),
        r#"{"userInput":"Friday"}"#
    );

    // Cancelled by the client.
    setup.model.push_all([
        call("call_t2", "ask_user", json!({"prompt": "And the budget?"})),
        done(),
    ]);
    run_turn_with(&mut setup, plan_mode(), "again", vec![Answer::Error]).await;
    assert_eq!(
        tool_output(&setup.model, "call_t2"),
        "ask_user was cancelled: the user did not answer (client failed)"
    );

    // Default mode: not offered, and a call anyway does not reach the client.
    let requests_before = setup.model.request_count();
    setup.model.push_all([
        call("call_t3", "ask_user", json!({"prompt": "Hm?"})),
        done(),
    ]);
    let messages = run_turn_with(&mut setup, default_mode(), "do it", Vec::new()).await;
    assert!(!offered_tools(&setup.model, requests_before).contains(&"ask_user".to_string()));
    assert!(server_requests(&messages, "agent/requestUserInput").is_empty());
    assert_eq!(
        tool_output(&setup.model, "call_t3"),
        "ask_user is unavailable: it needs plan mode and an interactive client"
    );
}

#[tokio::test]
async fn ask_user_question_returns_the_selected_answers() {
    let mut setup = setup_with(json!({"experimentalApi": true}), "").await;
    let questions = json!({"questions": [
        {"type": "single_choice", "text": "Which database?", "options": ["SQLite", "Postgres"], "allow_other": false},
        {"type": "multi_choice", "text": "Which targets?", "options": ["linux", "macos", "windows"], "allow_other": true}
    ]});
    setup.model.push_all([
        call("call_c", "ask_user_question", questions.clone()),
        done(),
    ]);
    let answer = json!({"answers": [
        {"questionIndex": 0, "selected": ["Postgres"]},
        {"questionIndex": 1, "selected": ["linux", "freebsd"]}
    ]});
    let messages = run_turn_with(
        &mut setup,
        default_mode(),
        "choose",
        vec![Answer::Result(answer)],
    )
    .await;
    let tools = setup.model.requests()[0]["tools"].clone();
    let spec = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "ask_user_question")
        .expect("ask_user_question is offered in any mode");
    assert_eq!(
        spec["parameters"]["properties"]["questions"]["items"]["properties"]["type"]["enum"],
        json!(["single_choice", "multi_choice"])
    );
    let request = server_requests(&messages, "agent/askUserQuestion")[0];
    assert_eq!(
        request["params"],
        json!({
            "threadId": setup.thread_id,
            "turnId": turn_id(&messages),
            "toolCallId": "call_c",
            "questions": [
                {"type": "single_choice", "text": "Which database?", "options": ["SQLite", "Postgres"], "allowOther": false},
                {"type": "multi_choice", "text": "Which targets?", "options": ["linux", "macos", "windows"], "allowOther": true}
            ]
        })
    );
    let output: Value = serde_json::from_str(&tool_output(&setup.model, "call_c")).unwrap();
    assert_eq!(
        output,
        json!({"answers": [
            {"question": "Which database?", "selected": ["Postgres"]},
            {"question": "Which targets?", "selected": ["linux", "freebsd"]}
        ]})
    );

    // Cancel aborts the call with an error the model sees.
    setup.model.push_all([
        call("call_c2", "ask_user_question", questions.clone()),
        done(),
    ]);
    run_turn_with(&mut setup, default_mode(), "again", vec![Answer::Error]).await;
    assert_eq!(
        tool_output(&setup.model, "call_c2"),
        "ask_user_question was cancelled: the user did not answer (client failed)"
    );

    // An option that does not exist on a closed question is refused.
    setup
        .model
        .push_all([call("call_c3", "ask_user_question", questions), done()]);
    let wrong = json!({"answers": [{"questionIndex": 0, "selected": ["MySQL"]}]});
    run_turn_with(
        &mut setup,
        default_mode(),
        "wrong",
        vec![Answer::Result(wrong)],
    )
    .await;
    assert_eq!(
        tool_output(&setup.model, "call_c3"),
        "ask_user_question failed: the client's answer is invalid: question 0 has no option `MySQL`"
    );

    // Bad questions never reach the client.
    setup.model.push_all([
        call(
            "call_c4",
            "ask_user_question",
            json!({"questions": [{"type": "single_choice", "text": "Only one?", "options": ["a"], "allow_other": false}]}),
        ),
        done(),
    ]);
    let messages = run_turn_with(&mut setup, default_mode(), "bad", Vec::new()).await;
    assert!(server_requests(&messages, "agent/askUserQuestion").is_empty());
    assert_eq!(
        tool_output(&setup.model, "call_c4"),
        "ask_user_question failed: question 0 needs at least 2 options"
    );
}

#[tokio::test]
async fn dialogs_are_offered_only_to_clients_that_can_answer_them() {
    // Without experimentalApi: neither dialog tool.
    let mut setup = setup_with(json!({"experimentalApi": false}), "").await;
    setup.model.push(done());
    let params = json!({"threadId": setup.thread_id, "input": [{"type": "text", "text": "hi"}]});
    setup.server.request("turn/start", params).await.unwrap();
    setup.server.notification("turn/completed").await;
    let tools = offered_tools(&setup.model, 0);
    assert!(tools.contains(&"request_user_input".to_string()));
    assert!(!tools.contains(&"ask_user_question".to_string()));
    assert!(!tools.contains(&"ask_user".to_string()));

    // `ask_user = false` (what `tandem run --yes` sets): no free-text questions even in plan
    // mode; choice questions stay.
    let mut setup = setup_with(json!({"experimentalApi": true}), "ask_user = false\n").await;
    setup.model.push(done());
    run_turn_with(&mut setup, plan_mode(), "plan", Vec::new()).await;
    let tools = offered_tools(&setup.model, 0);
    assert!(tools.contains(&"ask_user_question".to_string()));
    assert!(!tools.contains(&"ask_user".to_string()));
}

#[tokio::test]
async fn tandem_run_answers_the_dialogs_from_stdin() {
    use tokio::io::AsyncWriteExt;

    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(tandem_tests::server::tandem_binary())
        .args([
            "run",
            "--demo",
            "--plan",
            "--interactive",
            "--approval-policy",
            "never",
            "Show me the dialogs",
        ])
        .env("TANDEM_HOME", home.path())
        .env("RUST_LOG", "warn")
        .current_dir(workspace.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // request_user_input: option 1; ask_user_question: options 1 and 3, then a typed answer
    // that is not a number on a closed question (refused), then option 2; ask_user: text.
    let answers = "1\n1,3\nmaybe\n2\nhello from stdin\n";
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(answers.as_bytes()).await.unwrap();
    drop(stdin);
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("tandem run finishes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("? What should the demo do next?"),
        "{stdout}"
    );
    assert!(
        stdout.contains("? Which parts of the tour were useful?"),
        "{stdout}"
    );
    assert!(stdout.contains("  3. The patch"), "{stdout}");
    assert!(stdout.contains("type the number of an option"), "{stdout}");
    assert!(
        stdout.contains("? Anything you would like the demo to know?"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#""selected":["The plan","The patch"]"#),
        "{stdout}"
    );
    assert!(stdout.contains(r#""selected":["Not yet"]"#), "{stdout}");
    assert!(stdout.contains("hello from stdin"), "{stdout}");
    assert!(stdout.contains("Finish (Recommended)"), "{stdout}");
}

#[tokio::test]
async fn accept_for_session_remembers_apply_patch_inside_the_workspace() {
    let mut setup = common::tool_turns::setup("untrusted", "danger-full-access").await;
    let outside = tempfile::tempdir().unwrap();
    let outside_file = outside.path().join("outside.txt");
    let add = |name: &str| format!("*** Begin Patch\n*** Add File: {name}\n+hi\n*** End Patch\n");
    setup.model.push_all([
        common::tool_turns::patch("call_p1", &add("a.txt")),
        common::tool_turns::patch("call_p2", &add("sub/b.txt")),
        common::tool_turns::patch("call_p3", &add(outside_file.to_str().unwrap())),
        done(),
    ]);
    let messages = common::tool_turns::run_turn(
        &mut setup,
        "write three files",
        vec![
            common::tool_turns::decision("acceptForSession"),
            common::tool_turns::decision("decline"),
        ],
    )
    .await;
    let asked: Vec<&Value> = server_requests(&messages, "item/fileChange/requestApproval");
    assert_eq!(
        asked.len(),
        2,
        "the second patch in the workspace was not asked about"
    );
    assert_eq!(asked[1]["params"]["itemId"], "call_p3");
    assert!(setup.workspace.path().join("a.txt").exists());
    assert!(setup.workspace.path().join("sub/b.txt").exists());
    assert!(!outside_file.exists());
}
