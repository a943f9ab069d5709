//! `tandem exec` against the mock model: the answer on stdout and the transcript on stderr, the
//! `--json` events in the reference's shapes and order, a declined command, the exit statuses
//! (0 completed, 1 failed or interrupted, 2 bad usage), SIGINT, the git repository check, and
//! the operator's `[clients]` ceiling.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;
mod exec_common;

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{
    MockModel, MockResponse, ResponsesStream, responses_failed, responses_text,
};

use crate::common::tool_turns::{done, exec, patch};
use crate::exec_common::{ExecSetup, finish};

#[tokio::test]
async fn a_plain_run_prints_the_answer_on_stdout_and_the_transcript_on_stderr() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["Hello", " there."],
    )));
    let setup = ExecSetup::new(&model.base_url());
    let output = setup.run(&["say hello"], "").await;
    assert_eq!(output.status, Some(0), "{output}");
    assert_eq!(output.stdout, "Hello there.\n");
    assert!(output.stderr.contains("user\nsay hello\n"), "{output}");
    assert!(output.stderr.contains("codex\nHello there.\n"), "{output}");
    assert!(output.stderr.contains("tokens used\n"), "{output}");
    let request = &model.requests()[0];
    assert_eq!(exec_common::last_user_text(request), "say hello");
    // Nobody answers questions: no tool that asks them is offered.
    let tools: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(tools.contains(&"exec_command"), "{tools:?}");
    for question in ["request_user_input", "ask_user", "ask_user_question"] {
        assert!(!tools.contains(&question), "{question} offered: {tools:?}");
    }
}

#[tokio::test]
async fn the_prompt_comes_from_stdin_when_absent_or_dash() {
    let model = MockModel::start().await;
    model.push_all([
        MockResponse::sse(responses_text("msg_1", &["one"])),
        MockResponse::sse(responses_text("msg_2", &["two"])),
    ]);
    let setup = ExecSetup::new(&model.base_url());
    let output = setup.run(&[], "from stdin\n").await;
    assert_eq!(output.status, Some(0), "{output}");
    let output = setup.run(&["-"], "dash\n").await;
    assert_eq!(output.status, Some(0), "{output}");
    let prompts: Vec<String> = model
        .requests()
        .iter()
        .map(exec_common::last_user_text)
        .collect();
    assert_eq!(prompts, ["from stdin\n", "dash\n"]);
}

#[tokio::test]
async fn json_events_come_in_the_reference_shapes_and_order() {
    let model = MockModel::start().await;
    model.push_all([
        exec("call_1", "echo hi"),
        MockResponse::sse(responses_text("msg_1", &["It said ", "hi."])),
    ]);
    let setup = ExecSetup::new(&model.base_url());
    let output = setup
        .run(
            &["--experimental-json", "--sandbox", "danger-full-access"],
            "run echo",
        )
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    let mut events = output.events();
    let thread_id = output.thread_id();
    // The reference's `bash -lc` wrapper and its login shell's noise are not part of the shape.
    for event in &mut events {
        if event["item"]["type"] == "command_execution" {
            assert!(
                event["item"]["command"]
                    .as_str()
                    .unwrap()
                    .contains("echo hi"),
                "{event}"
            );
            event["item"]["command"] = json!("echo hi");
        }
    }
    assert_eq!(
        events,
        [
            json!({"type": "thread.started", "thread_id": thread_id}),
            json!({"type": "turn.started"}),
            json!({"type": "item.started", "item": {"id": "item_0", "type": "command_execution",
                "command": "echo hi", "aggregated_output": "", "exit_code": null, "status": "in_progress"}}),
            json!({"type": "item.completed", "item": {"id": "item_0", "type": "command_execution",
                "command": "echo hi", "aggregated_output": "hi\n", "exit_code": 0, "status": "completed"}}),
            json!({"type": "item.completed", "item": {"id": "item_1", "type": "agent_message",
                "text": "It said hi."}}),
            // Two model requests of 100 prompt tokens each (the mock's figure).
            json!({"type": "turn.completed", "usage": {"input_tokens": 200,
                "cached_input_tokens": 0, "cache_write_input_tokens": 0, "output_tokens": 3,
                "reasoning_output_tokens": 0}}),
        ]
    );
}

#[tokio::test]
async fn a_command_the_policy_asks_about_is_declined_and_never_runs() {
    let model = MockModel::start().await;
    model.push_all([exec("call_1", "touch declined.txt"), done()]);
    let setup = ExecSetup::new(&model.base_url());
    let output = setup
        .run(
            &[
                "--json",
                "--sandbox",
                "read-only",
                "-c",
                "approval_policy=\"untrusted\"",
            ],
            "touch it",
        )
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    assert!(!setup.workspace.path().join("declined.txt").exists());
    let events = output.events();
    let completed = events
        .iter()
        .find(|event| {
            event["type"] == "item.completed" && event["item"]["type"] == "command_execution"
        })
        .unwrap_or_else(|| panic!("no command item:\n{output}"));
    assert_eq!(completed["item"]["status"], "declined", "{output}");
    assert_eq!(completed["item"]["exit_code"], Value::Null);
    assert_eq!(
        output.types().last().map(String::as_str),
        Some("turn.completed")
    );
}

#[tokio::test]
async fn a_failed_turn_exits_1_after_turn_failed() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_failed("the model broke")));
    let setup = ExecSetup::new(&model.base_url());
    let output = setup
        .run(
            &["--json", "-c", "model_providers.mock.stream_max_retries=0"],
            "hi",
        )
        .await;
    assert_eq!(output.status, Some(1), "{output}");
    let events = output.events();
    let last = events.last().unwrap();
    assert_eq!(last["type"], "turn.failed", "{output}");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the model broke"),
        "{output}"
    );
    assert!(
        events.iter().any(|event| event["type"] == "error"),
        "{output}"
    );
}

#[tokio::test]
async fn bad_usage_exits_2_with_a_message_and_reference_flags_are_accepted() {
    let model = MockModel::start().await;
    let setup = ExecSetup::new(&model.base_url());
    let output = setup.run(&["--sandbox", "everything", "hi"], "").await;
    assert_eq!(output.status, Some(2), "{output}");
    assert!(
        output.stderr.contains("invalid value 'everything'"),
        "{output}"
    );
    let output = setup.run(&["--no-such-flag", "hi"], "").await;
    assert_eq!(output.status, Some(2), "{output}");
    assert!(output.stderr.contains("--no-such-flag"), "{output}");
    let output = setup.run(&["resume"], "").await;
    assert_eq!(output.status, Some(2), "{output}");
    assert!(output.stderr.contains("thread id or --last"), "{output}");
    assert_eq!(model.request_count(), 0);

    // A flag of the reference that Tandem does not implement is accepted with a warning.
    model.push(MockResponse::sse(responses_text("msg_1", &["ok"])));
    let output = setup
        .run(
            &["--json", "--thread-source", "user", "--ephemeral", "hi"],
            "",
        )
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    assert!(
        output
            .stderr
            .contains("--thread-source is accepted for compatibility and ignored"),
        "{output}"
    );
    assert_eq!(
        output.types(),
        [
            "thread.started",
            "turn.started",
            "item.completed",
            "turn.completed"
        ]
    );
}

#[tokio::test]
async fn outside_a_git_repository_it_refuses_unless_told_to_skip_the_check() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["ok"])));
    let setup = ExecSetup::new(&model.base_url());
    let elsewhere = tempfile::tempdir().unwrap();
    let dir = elsewhere.path().to_str().unwrap();
    let output = setup.run(&["--cd", dir, "hi"], "").await;
    assert_eq!(output.status, Some(1), "{output}");
    assert!(
        output
            .stderr
            .contains("is not inside a git repository and --skip-git-repo-check was not specified"),
        "{output}"
    );
    assert_eq!(model.request_count(), 0);
    let output = setup
        .run(&["--cd", dir, "--skip-git-repo-check", "hi"], "")
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    assert_eq!(output.stdout, "ok\n");
}

#[tokio::test]
async fn sigint_interrupts_the_turn_and_exits_1_after_turn_failed() {
    let model = MockModel::start().await;
    // The answer starts and never finishes until the gate opens.
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["never"]));
    model.push(response);
    let setup = ExecSetup::new(&model.base_url());
    let child = setup.spawn(&["--json", "hi"], &[("TANDEM_HOME", setup.home.path())]);
    let pid = child.id().unwrap() as libc::pid_t;
    let waiting = tokio::spawn(finish(child, ""));
    assert!(gate.wait_requested(Duration::from_secs(20)).await);
    // SAFETY: sends SIGINT to the child this test spawned and still holds.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let output = waiting.await.unwrap();
    drop(gate);
    assert_eq!(output.status, Some(1), "{output}");
    let events = output.events();
    assert_eq!(
        events.last().unwrap(),
        &json!({"type": "turn.failed", "error": {"message": "turn interrupted"}}),
        "{output}"
    );
}

#[tokio::test]
async fn the_operators_ceiling_bounds_the_sandbox_a_run_asks_for() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["ok"])));
    let setup = ExecSetup::new(&model.base_url());
    let mut config = std::fs::read_to_string(setup.home.path().join("config.toml")).unwrap();
    config.push_str("\n[clients]\nmax_sandbox = \"workspace-write\"\n");
    std::fs::write(setup.home.path().join("config.toml"), config).unwrap();
    let output = setup
        .run(&["--json", "--sandbox", "danger-full-access", "hi"], "")
        .await;
    assert_eq!(output.status, Some(1), "{output}");
    assert!(output.stderr.contains("clients.max_sandbox"), "{output}");
    assert_eq!(model.request_count(), 0);
    // Within the ceiling, the run goes ahead.
    let output = setup
        .run(&["--json", "--sandbox", "workspace-write", "hi"], "")
        .await;
    assert_eq!(output.status, Some(0), "{output}");
}

#[tokio::test]
async fn reasoning_the_plan_and_file_changes_become_their_reference_items() {
    let model = MockModel::start().await;
    let plan = |second: &str| {
        json!({"plan": [
            {"step": "Write the file", "status": "completed"},
            {"step": "Check it", "status": second},
        ]})
        .to_string()
    };
    model.push_all([
        MockResponse::sse(
            ResponsesStream::new()
                .reasoning_summary("rs_1", &["Thinking ", "it over"])
                .function_call("call_plan", "update_plan", &plan("pending"))
                .frames(),
        ),
        patch(
            "call_patch",
            "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n",
        ),
        MockResponse::sse(
            ResponsesStream::new()
                .function_call("call_plan_2", "update_plan", &plan("completed"))
                .frames(),
        ),
        done(),
    ]);
    let setup = ExecSetup::new(&model.base_url());
    let output = setup
        .run(
            &["--json", "--sandbox", "workspace-write", "write notes"],
            "",
        )
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    assert_eq!(
        std::fs::read_to_string(setup.workspace.path().join("notes.txt")).unwrap(),
        "hello\n"
    );
    let events: Vec<Value> = output
        .events()
        .into_iter()
        .filter(|event| event["type"] != "turn.completed")
        .skip(2)
        .collect();
    let todo = |completed: bool| {
        json!({"id": "item_1", "type": "todo_list", "items": [
            {"text": "Write the file", "completed": true},
            {"text": "Check it", "completed": completed},
        ]})
    };
    let path = std::fs::canonicalize(setup.workspace.path())
        .unwrap()
        .join("notes.txt");
    assert_eq!(
        events,
        [
            json!({"type": "item.completed", "item": {"id": "item_0", "type": "reasoning",
                "text": "Thinking it over"}}),
            json!({"type": "item.started", "item": todo(false)}),
            json!({"type": "item.completed", "item": {"id": "item_2", "type": "file_change",
                "changes": [{"path": path.to_str().unwrap(), "kind": "add"}], "status": "completed"}}),
            json!({"type": "item.updated", "item": todo(true)}),
            json!({"type": "item.completed", "item": {"id": "item_3", "type": "agent_message",
                "text": "done"}}),
            json!({"type": "item.completed", "item": todo(true)}),
        ],
        "{output}"
    );
}
