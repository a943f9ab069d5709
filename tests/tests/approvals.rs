//! Tools and approvals end to end: the mock model asks for commands, patches, plans and
//! questions over real HTTP; the test client answers the server's requests; the file system
//! shows what really ran.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tandem_tests::mock_model::{
    ChatStream, MockModel, MockResponse, responses_function_call, responses_text,
};
use tandem_tests::server::{SpawnOptions, TestServer, methods};

/// Config for the mock provider with an approval policy and a sandbox mode.
fn config(base_url: &str, approval: &str, sandbox: &str) -> String {
    config_for_wire(base_url, approval, sandbox, "responses")
}

fn config_for_wire(base_url: &str, approval: &str, sandbox: &str, wire_api: &str) -> String {
    format!(
        "model_provider = \"mock\"\nmodel = \"mock-model\"\napproval_policy = \"{approval}\"\nsandbox_mode = \"{sandbox}\"\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"{base_url}\"\nwire_api = \"{wire_api}\"\nrequest_max_retries = 0\nstream_max_retries = 0\nstream_idle_timeout_ms = 5000\n"
    )
}

struct Setup {
    model: MockModel,
    server: TestServer,
    thread_id: String,
    workspace: tempfile::TempDir,
}

async fn setup(approval: &str, sandbox: &str) -> Setup {
    setup_for_wire(approval, sandbox, "responses").await
}

async fn setup_for_wire(approval: &str, sandbox: &str, wire_api: &str) -> Setup {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config_for_wire(&model.base_url(), approval, sandbox, wire_api),
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

fn exec(call_id: &str, cmd: &str) -> MockResponse {
    let arguments = json!({"cmd": cmd, "login": false, "yield_time_ms": 5000}).to_string();
    MockResponse::sse(responses_function_call(call_id, "exec_command", &arguments))
}

fn patch(call_id: &str, patch: &str) -> MockResponse {
    let arguments = json!({"input": patch}).to_string();
    MockResponse::sse(responses_function_call(call_id, "apply_patch", &arguments))
}

fn done() -> MockResponse {
    MockResponse::sse(responses_text("msg_done", &["done"]))
}

/// How the client answers a server request: a result body or an error object.
enum Answer {
    Result(Value),
    Error,
    /// Do not answer; interrupt the turn instead.
    Interrupt,
}

fn decision(decision: &str) -> Answer {
    Answer::Result(json!({"decision": decision}))
}

/// Starts a turn and reads every message until `turn/completed`, answering each server
/// request with the next answer.
async fn run_turn(setup: &mut Setup, text: &str, answers: Vec<Answer>) -> Vec<Value> {
    run_turn_with(setup, json!({}), text, answers).await
}

async fn run_turn_with(
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
            // Late notifications (serverRequest/resolved after an interrupt).
            seen.extend(server.messages_within(Duration::from_millis(200)).await);
            return seen;
        }
    }
}

fn find<'a>(messages: &'a [Value], method: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|message| message.get("method") == Some(&json!(method)))
        .collect()
}

fn completed_item<'a>(messages: &'a [Value], kind: &str) -> &'a Value {
    find(messages, "item/completed")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["type"] == kind)
        .unwrap_or_else(|| panic!("no completed {kind} item in {messages:#?}"))
}

/// The output the model got for `call_id` in its last request.
fn tool_output(model: &MockModel, call_id: &str) -> String {
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

fn turn_status(messages: &[Value]) -> String {
    find(messages, "turn/completed")[0]["params"]["turn"]["status"]
        .as_str()
        .unwrap()
        .to_string()
}

fn exists(workspace: &Path, name: &str) -> bool {
    workspace.join(name).exists()
}

#[tokio::test]
async fn an_accepted_command_runs_in_the_reference_order() {
    let mut setup = setup("untrusted", "danger-full-access").await;
    setup.model.push_all([
        exec("call_1", "echo line1; echo line2; touch approved.txt"),
        done(),
    ]);
    let messages = run_turn(&mut setup, "run it", vec![decision("accept")]).await;
    assert!(exists(setup.workspace.path(), "approved.txt"));

    let sequence: Vec<String> = methods(&messages)
        .into_iter()
        .filter(|method| method != "item/commandExecution/outputDelta")
        .collect();
    let start = sequence
        .iter()
        .position(|method| method == "item/commandExecution/requestApproval")
        .unwrap();
    assert_eq!(
        &sequence[start - 2..start + 4],
        [
            "thread/status/changed",
            "item/started",
            "item/commandExecution/requestApproval",
            "serverRequest/resolved",
            "thread/status/changed",
            "item/completed",
        ]
    );
    let waiting = &messages
        .iter()
        .find(|message| message["params"]["status"]["activeFlags"] == json!(["waitingOnApproval"]))
        .unwrap();
    assert_eq!(waiting["params"]["threadId"], json!(setup.thread_id));
    let request = find(&messages, "item/commandExecution/requestApproval")[0];
    assert_eq!(request["params"]["itemId"], "call_1");
    assert_eq!(
        request["params"]["command"],
        "/bin/bash -c 'echo line1; echo line2; touch approved.txt'"
    );
    let item = completed_item(&messages, "commandExecution");
    assert_eq!(item["status"], "completed");
    assert_eq!(item["exitCode"], 0);
    assert_eq!(item["aggregatedOutput"], "line1\nline2\n");
    let deltas: String = find(&messages, "item/commandExecution/outputDelta")
        .iter()
        .map(|message| message["params"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "line1\nline2\n");
    let output = tool_output(&setup.model, "call_1");
    assert!(output.contains("Process exited with code 0"), "{output}");
    assert!(output.ends_with("Output:\nline1\nline2\n"), "{output}");
    assert_eq!(turn_status(&messages), "completed");
}

#[tokio::test]
async fn a_declined_command_never_runs_and_the_turn_goes_on() {
    let mut setup = setup("untrusted", "danger-full-access").await;
    setup
        .model
        .push_all([exec("call_1", "touch declined.txt"), done()]);
    let messages = run_turn(&mut setup, "run it", vec![decision("decline")]).await;
    assert!(!exists(setup.workspace.path(), "declined.txt"));
    let item = completed_item(&messages, "commandExecution");
    assert_eq!(item["status"], "declined");
    assert_eq!(item["exitCode"], Value::Null);
    assert_eq!(item["aggregatedOutput"], Value::Null);
    assert_eq!(
        tool_output(&setup.model, "call_1"),
        "exec_command failed: CreateProcess { message: \"Rejected(\\\"rejected by user\\\")\" }"
    );
    // Decline: the item completes right after serverRequest/resolved, before the status flip.
    let sequence = methods(&messages);
    let resolved = sequence
        .iter()
        .position(|method| method == "serverRequest/resolved")
        .unwrap();
    assert_eq!(
        &sequence[resolved..resolved + 3],
        [
            "serverRequest/resolved",
            "item/completed",
            "thread/status/changed"
        ]
    );
    assert_eq!(turn_status(&messages), "completed");
}

#[tokio::test]
async fn cancel_ends_the_turn_as_interrupted_and_an_error_reply_fails_the_item() {
    let mut setup = setup("untrusted", "danger-full-access").await;
    setup.model.push(exec("call_1", "touch cancelled.txt"));
    let messages = run_turn(&mut setup, "run it", vec![decision("cancel")]).await;
    assert!(!exists(setup.workspace.path(), "cancelled.txt"));
    assert_eq!(
        completed_item(&messages, "commandExecution")["status"],
        "declined"
    );
    assert_eq!(turn_status(&messages), "interrupted");
    assert_eq!(setup.model.request_count(), 1, "no request after a cancel");

    setup
        .model
        .push_all([exec("call_2", "touch failed.txt"), done()]);
    let messages = run_turn(&mut setup, "again", vec![Answer::Error]).await;
    assert!(!exists(setup.workspace.path(), "failed.txt"));
    assert_eq!(
        completed_item(&messages, "commandExecution")["status"],
        "failed"
    );
    assert_eq!(
        tool_output(&setup.model, "call_2"),
        "exec_command failed: CreateProcess { message: \"Rejected(\\\"approval request failed\\\")\" }"
    );
    assert_eq!(turn_status(&messages), "completed");
}

#[tokio::test]
async fn accept_for_session_stops_asking_for_the_same_command() {
    let mut setup = setup("untrusted", "danger-full-access").await;
    setup.model.push_all([
        exec("call_1", "echo again >> log.txt"),
        exec("call_2", "echo again >> log.txt"),
        exec("call_3", "echo other >> log.txt"),
        done(),
    ]);
    let messages = run_turn(
        &mut setup,
        "run it thrice",
        vec![decision("acceptForSession"), decision("decline")],
    )
    .await;
    let requests = find(&messages, "item/commandExecution/requestApproval");
    assert_eq!(requests.len(), 2, "the repeat ran without asking");
    assert_eq!(requests[1]["params"]["itemId"], "call_3");
    let log = std::fs::read_to_string(setup.workspace.path().join("log.txt")).unwrap();
    assert_eq!(log, "again\nagain\n");
}

#[tokio::test]
async fn interrupt_while_an_approval_is_pending_runs_nothing() {
    let mut setup = setup("untrusted", "danger-full-access").await;
    setup.model.push(exec("call_1", "touch never.txt"));
    let messages = run_turn(&mut setup, "run it", vec![Answer::Interrupt]).await;
    assert!(!exists(setup.workspace.path(), "never.txt"));
    assert_eq!(turn_status(&messages), "interrupted");
    assert!(
        find(&messages, "item/completed")
            .iter()
            .all(|message| message["params"]["item"]["type"] != "commandExecution"),
        "an interrupted command item is never completed"
    );
    // serverRequest/resolved follows turn/completed.
    let sequence = methods(&messages);
    let completed = sequence.iter().position(|m| m == "turn/completed").unwrap();
    let resolved = sequence
        .iter()
        .position(|m| m == "serverRequest/resolved")
        .unwrap();
    assert!(resolved > completed, "{sequence:?}");
    // A late answer is ignored and the server keeps serving.
    let request = find(&messages, "item/commandExecution/requestApproval")[0];
    setup
        .server
        .send(&json!({"id": request["id"], "result": {"decision": "accept"}}))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!exists(setup.workspace.path(), "never.txt"));
    let listed = setup
        .server
        .request("thread/loaded/list", json!({}))
        .await
        .unwrap();
    assert_eq!(listed["data"], json!([setup.thread_id]));
}

#[tokio::test]
async fn patches_follow_the_decision_and_report_the_turn_diff() {
    let mut setup = setup("untrusted", "workspace-write").await;
    setup.model.push_all([
        patch(
            "call_add",
            "*** Begin Patch\n*** Add File: patched.txt\n+Hello from apply_patch\n*** End Patch\n",
        ),
        done(),
    ]);
    let messages = run_turn(&mut setup, "patch", vec![decision("accept")]).await;
    assert_eq!(
        std::fs::read_to_string(setup.workspace.path().join("patched.txt")).unwrap(),
        "Hello from apply_patch\n"
    );
    let started = find(&messages, "item/started")
        .into_iter()
        .find(|message| message["params"]["item"]["type"] == "fileChange")
        .unwrap();
    assert_eq!(
        started["params"]["item"]["changes"][0]["diff"],
        "Hello from apply_patch\n"
    );
    assert_eq!(
        completed_item(&messages, "fileChange")["status"],
        "completed"
    );
    let diff = find(&messages, "turn/diff/updated")[0]["params"]["diff"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        diff.starts_with("diff --git a/patched.txt b/patched.txt\nnew file mode 100644\n"),
        "{diff}"
    );
    assert!(
        diff.ends_with("+++ b/patched.txt\n@@ -0,0 +1 @@\n+Hello from apply_patch\n"),
        "{diff}"
    );
    assert!(
        tool_output(&setup.model, "call_add")
            .contains("Success. Updated the following files:\nA patched.txt\n")
    );

    // Declined: nothing written, the model is told.
    setup.model.push_all([
        patch(
            "call_upd",
            "*** Begin Patch\n*** Update File: patched.txt\n@@\n-Hello from apply_patch\n+Changed\n*** End Patch\n",
        ),
        done(),
    ]);
    let messages = run_turn(&mut setup, "change it", vec![decision("decline")]).await;
    assert_eq!(
        std::fs::read_to_string(setup.workspace.path().join("patched.txt")).unwrap(),
        "Hello from apply_patch\n"
    );
    assert_eq!(
        completed_item(&messages, "fileChange")["status"],
        "declined"
    );
    assert_eq!(
        tool_output(&setup.model, "call_upd"),
        "patch rejected by user"
    );
}

#[tokio::test]
async fn a_failing_patch_writes_nothing_and_a_heredoc_becomes_a_file_change() {
    let mut setup = setup("on-request", "workspace-write").await;
    std::fs::write(setup.workspace.path().join("keep.txt"), "original\n").unwrap();
    setup.model.push_all([
        patch(
            "call_bad",
            "*** Begin Patch\n*** Add File: new.txt\n+new\n*** Update File: keep.txt\n@@\n-not there\n+x\n*** End Patch\n",
        ),
        done(),
    ]);
    let messages = run_turn(&mut setup, "patch", Vec::new()).await;
    assert!(
        !exists(setup.workspace.path(), "new.txt"),
        "no partial write"
    );
    assert_eq!(
        std::fs::read_to_string(setup.workspace.path().join("keep.txt")).unwrap(),
        "original\n"
    );
    assert!(find(&messages, "item/fileChange/requestApproval").is_empty());
    let output = tool_output(&setup.model, "call_bad");
    assert!(output.contains("Failed to find expected lines"), "{output}");

    // `apply_patch <<'EOF'` through exec_command: a file change, never a command.
    let heredoc = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: keep.txt\n@@\n-original\n+updated\n*** End Patch\nEOF\n";
    setup
        .model
        .push_all([exec("call_heredoc", heredoc), done()]);
    let messages = run_turn(&mut setup, "patch via shell", Vec::new()).await;
    assert_eq!(
        std::fs::read_to_string(setup.workspace.path().join("keep.txt")).unwrap(),
        "updated\n"
    );
    let change = completed_item(&messages, "fileChange");
    assert_eq!(
        change["changes"][0]["kind"],
        json!({"type": "update", "move_path": null})
    );
    assert_eq!(
        change["changes"][0]["diff"],
        "@@ -1 +1 @@\n-original\n+updated\n"
    );
    assert!(
        find(&messages, "item/started")
            .iter()
            .all(|message| message["params"]["item"]["type"] != "commandExecution")
    );
    assert!(
        tool_output(&setup.model, "call_heredoc")
            .starts_with("Wall time: 0.0000 seconds\nOutput:\nExit code: 0\n")
    );
}

#[tokio::test]
async fn plans_and_questions_reach_the_client() {
    let mut setup = setup("never", "read-only").await;
    let plan = json!({"explanation": "why", "plan": [
        {"step": "one", "status": "completed"},
        {"step": "two", "status": "in_progress"},
    ]});
    let question = json!({"questions": [{"id": "confirm_path", "header": "Confirm",
        "question": "Proceed?", "options": [{"label": "Yes (Recommended)", "description": "Go."},
        {"label": "No", "description": "Stop."}]}]});
    setup.model.push_all([
        MockResponse::sse(responses_function_call(
            "call_plan",
            "update_plan",
            &plan.to_string(),
        )),
        MockResponse::sse(responses_function_call(
            "call_q",
            "request_user_input",
            &question.to_string(),
        )),
        done(),
    ]);
    let plan_mode =
        json!({"collaborationMode": {"mode": "plan", "settings": {"model": "mock-model"}}});
    let answer = json!({"answers": {"confirm_path": {"answers": ["Yes (Recommended)"]}}});
    let messages = run_turn_with(
        &mut setup,
        plan_mode,
        "plan",
        vec![Answer::Result(answer.clone())],
    )
    .await;
    let updated = &find(&messages, "turn/plan/updated")[0]["params"];
    assert_eq!(updated["explanation"], "why");
    assert_eq!(
        updated["plan"],
        json!([{"step": "one", "status": "completed"}, {"step": "two", "status": "inProgress"}])
    );
    assert_eq!(tool_output(&setup.model, "call_plan"), "Plan updated");
    let request = &find(&messages, "item/tool/requestUserInput")[0]["params"];
    assert_eq!(request["questions"][0]["isOther"], true);
    assert_eq!(request["questions"][0]["isSecret"], false);
    assert_eq!(request["isBlocking"], true);
    assert!(
        messages
            .iter()
            .any(|message| message["params"]["status"]["activeFlags"]
                == json!(["waitingOnUserInput"]))
    );
    let output: Value = serde_json::from_str(&tool_output(&setup.model, "call_q")).unwrap();
    assert_eq!(output, answer);

    // An error reply fails the call with a clear message; the turn goes on.
    setup.model.push_all([
        MockResponse::sse(responses_function_call(
            "call_q2",
            "request_user_input",
            &question.to_string(),
        )),
        done(),
    ]);
    let messages = run_turn(&mut setup, "again", vec![Answer::Error]).await;
    assert_eq!(turn_status(&messages), "completed");
    assert!(tool_output(&setup.model, "call_q2").starts_with("request_user_input failed"));

    // Default mode: the client is not asked.
    setup.model.push_all([
        MockResponse::sse(responses_function_call(
            "call_q3",
            "request_user_input",
            &question.to_string(),
        )),
        done(),
    ]);
    let default_mode =
        json!({"collaborationMode": {"mode": "default", "settings": {"model": "mock-model"}}});
    let messages = run_turn_with(&mut setup, default_mode, "default", Vec::new()).await;
    assert!(find(&messages, "item/tool/requestUserInput").is_empty());
    assert_eq!(
        tool_output(&setup.model, "call_q3"),
        "request_user_input is unavailable in Default mode"
    );
}

#[tokio::test]
async fn the_sandbox_blocks_writes_under_never_without_asking() {
    let mut setup = setup("never", "read-only").await;
    setup
        .model
        .push_all([exec("call_1", "touch blocked.txt"), done()]);
    let messages = run_turn(&mut setup, "write", Vec::new()).await;
    assert!(find(&messages, "item/commandExecution/requestApproval").is_empty());
    assert!(!exists(setup.workspace.path(), "blocked.txt"));
    let item = completed_item(&messages, "commandExecution");
    assert_eq!(item["status"], "failed");
    assert!(tool_output(&setup.model, "call_1").contains("Permission denied"));
}

#[tokio::test]
async fn a_sandbox_denial_is_retried_outside_only_after_approval() {
    let mut setup = setup("on-request", "read-only").await;
    setup
        .model
        .push_all([exec("call_1", "touch escalated.txt"), done()]);
    let messages = run_turn(&mut setup, "write", vec![decision("accept")]).await;
    let request = &find(&messages, "item/commandExecution/requestApproval")[0]["params"];
    assert!(request["reason"].as_str().unwrap().contains("sandbox"));
    assert!(exists(setup.workspace.path(), "escalated.txt"));
    assert_eq!(
        completed_item(&messages, "commandExecution")["status"],
        "completed"
    );

    setup
        .model
        .push_all([exec("call_2", "touch refused.txt"), done()]);
    run_turn(&mut setup, "write again", vec![decision("decline")]).await;
    assert!(!exists(setup.workspace.path(), "refused.txt"));
}

#[tokio::test]
async fn interrupting_a_long_command_kills_its_process_tree() {
    let mut setup = setup("never", "danger-full-access").await;
    let pid_file = setup.workspace.path().join("child.pid");
    let cmd = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
    setup.model.push(exec("call_1", &cmd));
    let turn = setup
        .server
        .request(
            "turn/start",
            json!({"threadId": setup.thread_id, "input": [{"type": "text", "text": "go"}]}),
        )
        .await
        .unwrap();
    let turn_id = turn["turn"]["id"].clone();
    setup
        .server
        .take_matching(|message| {
            message["method"] == "item/started"
                && message["params"]["item"]["type"] == "commandExecution"
        })
        .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !pid_file.exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    setup
        .server
        .request(
            "turn/interrupt",
            json!({"threadId": setup.thread_id, "turnId": turn_id}),
        )
        .await
        .unwrap();
    let messages = setup.server.until_turn_completed().await;
    assert_eq!(turn_status(&messages), "interrupted");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while Path::new(&format!("/proc/{pid}")).exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(
        stat.is_empty() || stat.contains(") Z "),
        "the background child survived the interrupt: {stat}"
    );
}

#[tokio::test]
async fn long_output_is_truncated_for_the_model_but_not_for_the_client() {
    let mut setup = setup("never", "danger-full-access").await;
    let arguments =
        json!({"cmd": "seq 1 5000", "login": false, "max_output_tokens": 100}).to_string();
    setup.model.push_all([
        MockResponse::sse(responses_function_call(
            "call_1",
            "exec_command",
            &arguments,
        )),
        done(),
    ]);
    let messages = run_turn(&mut setup, "count", Vec::new()).await;
    let output = tool_output(&setup.model, "call_1");
    assert!(output.contains("tokens truncated"), "{output}");
    assert!(output.contains("\n1\n2\n"), "head kept: {output}");
    assert!(output.ends_with("4999\n5000\n"), "tail kept: {output}");
    assert!(output.len() < 1000, "{} bytes", output.len());
    let item = completed_item(&messages, "commandExecution");
    let aggregated = item["aggregatedOutput"].as_str().unwrap();
    assert_eq!(aggregated.lines().count(), 5000);
}

/// A small deterministic generator, so that the property test needs no extra dependency and
/// fails the same way every time.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

/// For random sequences of commands and patches under `untrusted` and random answers, a file
/// appears exactly when its call was accepted (and the turn was not cancelled before it).
#[tokio::test]
async fn nothing_runs_or_changes_without_an_accept() {
    let mut setup = setup("untrusted", "workspace-write").await;
    let mut random = Lcg(0x5eed);
    let answers = ["accept", "acceptForSession", "decline", "cancel", "error"];
    let mut expected_files: Vec<(String, bool)> = Vec::new();
    for turn in 0..8 {
        let calls = 1 + random.next(3);
        let mut responses = Vec::new();
        let mut replies = Vec::new();
        let mut cancelled = false;
        for call in 0..calls {
            let name = format!("t{turn}c{call}.txt");
            let call_id = format!("call_{turn}_{call}");
            let answer = answers[random.next(answers.len() as u64) as usize];
            if random.next(2) == 0 {
                responses.push(exec(&call_id, &format!("touch {name}")));
            } else {
                responses.push(patch(
                    &call_id,
                    &format!("*** Begin Patch\n*** Add File: {name}\n+x\n*** End Patch\n"),
                ));
            }
            if cancelled {
                // The turn already ended; the model is not asked again.
                expected_files.push((name, false));
                continue;
            }
            expected_files.push((name, matches!(answer, "accept" | "acceptForSession")));
            replies.push(match answer {
                "error" => Answer::Error,
                other => decision(other),
            });
            cancelled = answer == "cancel";
        }
        if !cancelled {
            responses.push(done());
        }
        // After a cancel the model is not asked again: only the calls up to it are served.
        let served = replies.len() + usize::from(!cancelled);
        setup.model.push_all(responses.into_iter().take(served));
        run_turn(&mut setup, &format!("turn {turn}"), replies).await;
    }
    assert!(expected_files.iter().any(|(_, exists)| *exists));
    assert!(expected_files.iter().any(|(_, exists)| !*exists));
    for (name, should_exist) in &expected_files {
        assert_eq!(
            exists(setup.workspace.path(), name),
            *should_exist,
            "{name}: exists should be {should_exist}"
        );
    }
}

#[tokio::test]
async fn view_image_shows_the_model_the_picture() {
    let mut setup = setup("never", "read-only").await;
    // The smallest valid PNG header is enough: the engine checks the magic bytes.
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
    std::fs::write(setup.workspace.path().join("pixel.png"), png).unwrap();
    std::fs::write(setup.workspace.path().join("notes.txt"), "not an image").unwrap();
    setup.model.push_all([
        MockResponse::sse(responses_function_call(
            "call_img",
            "view_image",
            &json!({"path": "pixel.png"}).to_string(),
        )),
        MockResponse::sse(responses_function_call(
            "call_txt",
            "view_image",
            &json!({"path": "notes.txt"}).to_string(),
        )),
        done(),
    ]);
    let messages = run_turn(&mut setup, "look", Vec::new()).await;
    let item = completed_item(&messages, "imageView");
    assert!(item["path"].as_str().unwrap().ends_with("/pixel.png"));
    assert_eq!(tool_output(&setup.model, "call_img"), "attached the image");
    let requests = setup.model.requests();
    let input = requests.last().unwrap()["input"]
        .as_array()
        .unwrap()
        .clone();
    let image = input
        .iter()
        .find_map(|item| {
            item["content"]
                .as_array()
                .and_then(|parts| parts.iter().find(|part| part["type"] == "input_image"))
        })
        .expect("the image goes to the model");
    assert!(
        image["image_url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,iVBORw0KGgo")
    );
    let refused = tool_output(&setup.model, "call_txt");
    assert!(
        refused.starts_with("view_image failed:") && refused.contains("not a PNG"),
        "{refused}"
    );
}

#[tokio::test]
async fn chat_completions_models_get_the_same_tools_and_approvals() {
    let mut setup = setup_for_wire("untrusted", "danger-full-access", "chat").await;
    let arguments = json!({"cmd": "echo from-chat > chat.txt", "login": false}).to_string();
    setup.model.push_all([
        MockResponse::sse(
            ChatStream::new()
                .tool_call("call_c", "exec_command", &arguments)
                .frames(),
        ),
        MockResponse::sse(ChatStream::new().text(&["ok"]).frames()),
    ]);
    let messages = run_turn(&mut setup, "run it", vec![decision("accept")]).await;
    assert_eq!(
        std::fs::read_to_string(setup.workspace.path().join("chat.txt")).unwrap(),
        "from-chat\n"
    );
    assert_eq!(
        completed_item(&messages, "commandExecution")["status"],
        "completed"
    );
    let requests = setup.model.requests();
    let first = &requests[0];
    assert!(
        first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["function"]["name"] == "exec_command")
    );
    let tool_message = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "tool")
        .expect("the output goes back as a tool message")
        .clone();
    assert_eq!(tool_message["tool_call_id"], "call_c");
    assert!(
        tool_message["content"]
            .as_str()
            .unwrap()
            .contains("Process exited with code 0")
    );
    assert_eq!(turn_status(&messages), "completed");
}
