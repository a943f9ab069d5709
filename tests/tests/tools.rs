//! The other tools and the policies around them, end to end: plans, questions, images, the
//! sandbox, process trees, output budgets, the Chat Completions wire, and a property test that
//! nothing runs or changes without an accept.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::path::Path;

use common::tool_turns::{
    Answer, completed_item, decision, done, exec, exists, find, patch, run_turn, run_turn_with,
    setup, setup_for_wire, tool_output, turn_status,
};
use serde_json::{Value, json};
use tandem_tests::mock_model::{ChatStream, MockResponse, responses_function_call};
use tandem_tests::process::{make_fifo, read_fifo, wait_for_exit};
use tandem_tests::server::methods;

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
    // The plan goes out as the call arrives, before the usage of the response that made it:
    // the reference runs tool calls in flight (its command items start before that usage,
    // `c_shell_approval_decline`), and `m_reasoning_plan` puts the usage right after the
    // user message when the response holds only the call.
    let sequence = methods(&messages);
    let plan_at = sequence
        .iter()
        .position(|m| m == "turn/plan/updated")
        .unwrap();
    let usage_at = sequence
        .iter()
        .position(|m| m == "thread/tokenUsage/updated")
        .unwrap();
    assert_eq!(
        sequence[plan_at - 1..=usage_at],
        [
            "item/completed",
            "turn/plan/updated",
            "thread/tokenUsage/updated"
        ],
        "{sequence:?}"
    );
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
    let pid_file = make_fifo(setup.workspace.path(), "child.pid");
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
    let pid: u32 = read_fifo(&pid_file).await.trim().parse().unwrap();
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
    // Fails the test if the background child survives the interrupt.
    wait_for_exit(pid).await;
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

#[tokio::test]
async fn plan_mode_survives_unloading_the_thread() {
    let mut setup = setup("never", "read-only").await;
    setup.model.push(done());
    let plan_mode =
        json!({"collaborationMode": {"mode": "plan", "settings": {"model": "mock-model"}}});
    run_turn_with(&mut setup, plan_mode, "plan first", Vec::new()).await;
    setup
        .server
        .request("thread/unsubscribe", json!({"threadId": setup.thread_id}))
        .await
        .unwrap();
    let resumed = setup
        .server
        .request("thread/resume", json!({"threadId": setup.thread_id}))
        .await
        .unwrap();
    assert_eq!(resumed["collaborationMode"]["mode"], "plan", "{resumed:#}");
    // The next turn, which names no mode, may still ask questions.
    let question = json!({"questions": [{"id": "go", "header": "Go", "question": "Go on?",
        "options": [{"label": "Yes (Recommended)", "description": "Go."},
        {"label": "No", "description": "Stop."}]}]});
    setup.model.push_all([
        MockResponse::sse(responses_function_call(
            "call_q",
            "request_user_input",
            &question.to_string(),
        )),
        done(),
    ]);
    let answer = json!({"answers": {"go": {"answers": ["Yes (Recommended)"]}}});
    let messages = run_turn(&mut setup, "again", vec![Answer::Result(answer)]).await;
    assert_eq!(find(&messages, "item/tool/requestUserInput").len(), 1);
}

#[tokio::test]
async fn bad_calls_get_an_answer_and_the_turn_goes_on() {
    let mut setup = setup("never", "read-only").await;
    setup.model.push_all([
        MockResponse::sse(responses_function_call("call_bad_json", "exec_command", "{not json")),
        MockResponse::sse(responses_function_call("call_unknown", "launch_rockets", "{}")),
        MockResponse::sse(responses_function_call(
            "call_bad_plan",
            "update_plan",
            &json!({"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]}).to_string(),
        )),
        done(),
    ]);
    let messages = run_turn(&mut setup, "misbehave", Vec::new()).await;
    assert_eq!(turn_status(&messages), "completed");
    assert!(
        tool_output(&setup.model, "call_bad_json")
            .starts_with("failed to parse function arguments:")
    );
    assert_eq!(
        tool_output(&setup.model, "call_unknown"),
        "unsupported call: launch_rockets"
    );
    assert_eq!(
        tool_output(&setup.model, "call_bad_plan"),
        "update_plan failed: at most one step can be in_progress"
    );
    assert!(find(&messages, "turn/plan/updated").is_empty());
}

#[tokio::test]
async fn accept_for_session_also_covers_the_retry_outside_the_sandbox() {
    let mut setup = setup("on-request", "read-only").await;
    setup.model.push_all([
        exec("call_1", "echo once >> log.txt"),
        exec("call_2", "echo once >> log.txt"),
        done(),
    ]);
    let messages = run_turn(
        &mut setup,
        "write twice",
        vec![decision("acceptForSession")],
    )
    .await;
    assert_eq!(
        find(&messages, "item/commandExecution/requestApproval").len(),
        1,
        "the repeat was not asked about again"
    );
    assert_eq!(
        std::fs::read_to_string(setup.workspace.path().join("log.txt")).unwrap(),
        "once\nonce\n"
    );
}
