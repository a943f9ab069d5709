//! Commands and patches behind approvals, end to end: the mock model asks over real HTTP, the
//! test client answers the server's requests, and the file system shows what really ran.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{
    Answer, completed_item, decision, done, exec, exists, find, patch, run_turn, setup,
    tool_output, turn_status,
};
use serde_json::{Value, json};
use tandem_tests::server::methods;

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
    // Both model responses (the call, then the answer) report their usage.
    assert_eq!(find(&messages, "thread/tokenUsage/updated").len(), 2);
    assert_eq!(turn_status(&messages), "completed");
}

/// Every model response reports its token usage, also the one whose tool call ended the turn.
fn usage_updates_before_turn_completed(messages: &[Value]) -> usize {
    let sequence = methods(messages);
    let completed = sequence.iter().position(|m| m == "turn/completed").unwrap();
    sequence[..completed]
        .iter()
        .filter(|m| *m == "thread/tokenUsage/updated")
        .count()
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
    assert_eq!(usage_updates_before_turn_completed(&messages), 1);
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

/// The stdio front end decodes each answer into the engine's typed decision: an amendment
/// approves the command for the thread, and an answer that is no decision fails the item
/// without running anything.
#[tokio::test]
async fn answers_become_typed_decisions_and_unreadable_ones_fail_the_item() {
    let mut setup = setup("untrusted", "danger-full-access").await;
    setup.model.push_all([
        exec("call_1", "echo amended >> log.txt"),
        exec("call_2", "echo amended >> log.txt"),
        exec("call_3", "echo unread >> log.txt"),
        exec("call_4", "echo wrong >> log.txt"),
        done(),
    ]);
    let amendment = Answer::Result(json!({"decision": {"acceptWithExecpolicyAmendment": {
        "execpolicy_amendment": ["/bin/bash", "-c", "echo amended >> log.txt"],
    }}}));
    let messages = run_turn(
        &mut setup,
        "run them",
        vec![
            amendment,
            decision("maybe"),
            Answer::Result(json!({"answers": {}})),
        ],
    )
    .await;
    let requests = find(&messages, "item/commandExecution/requestApproval");
    let asked: Vec<&Value> = requests
        .iter()
        .map(|request| &request["params"]["itemId"])
        .collect();
    assert_eq!(
        asked,
        ["call_1", "call_3", "call_4"],
        "call_2 ran without asking"
    );
    let log = std::fs::read_to_string(setup.workspace.path().join("log.txt")).unwrap();
    assert_eq!(log, "amended\namended\n");
    for call in ["call_3", "call_4"] {
        assert_eq!(
            tool_output(&setup.model, call),
            "exec_command failed: CreateProcess { message: \"Rejected(\\\"approval request failed\\\")\" }",
            "{call}"
        );
    }
    let statuses: Vec<Value> = find(&messages, "item/completed")
        .iter()
        .filter(|message| message["params"]["item"]["type"] == "commandExecution")
        .map(|message| message["params"]["item"]["status"].clone())
        .collect();
    assert_eq!(statuses, ["completed", "completed", "failed", "failed"]);
    assert_eq!(turn_status(&messages), "completed");
}

#[tokio::test]
async fn interrupt_while_an_approval_is_pending_runs_nothing() {
    let mut setup = setup("untrusted", "danger-full-access").await;
    setup.model.push(exec("call_1", "touch never.txt"));
    let messages = run_turn(&mut setup, "run it", vec![Answer::Interrupt]).await;
    assert!(!exists(setup.workspace.path(), "never.txt"));
    assert_eq!(turn_status(&messages), "interrupted");
    assert_eq!(usage_updates_before_turn_completed(&messages), 1);
    assert!(
        find(&messages, "item/completed")
            .iter()
            .all(|message| message["params"]["item"]["type"] != "commandExecution"),
        "an interrupted command item is never completed"
    );
    // After the request, the status goes straight to idle (no flip back to `active`).
    let request_at = messages
        .iter()
        .position(|message| message["method"] == "item/commandExecution/requestApproval")
        .unwrap();
    let statuses: Vec<&Value> = messages[request_at..]
        .iter()
        .filter(|message| message["method"] == "thread/status/changed")
        .map(|message| &message["params"]["status"])
        .collect();
    assert_eq!(statuses, [&json!({"type": "idle"})]);
    // serverRequest/resolved follows turn/completed.
    let sequence = methods(&messages);
    let completed = sequence.iter().position(|m| m == "turn/completed").unwrap();
    let resolved = sequence
        .iter()
        .position(|m| m == "serverRequest/resolved")
        .unwrap();
    assert!(resolved > completed, "{sequence:?}");
    // A late answer is ignored and the server keeps serving. Client messages are handled in
    // order, so once the next request is answered the late answer has been dealt with.
    let request = find(&messages, "item/commandExecution/requestApproval")[0];
    setup
        .server
        .send(&json!({"id": request["id"], "result": {"decision": "accept"}}))
        .await;
    let listed = setup
        .server
        .request("thread/loaded/list", json!({}))
        .await
        .unwrap();
    assert_eq!(listed["data"], json!([setup.thread_id]));
    assert!(!exists(setup.workspace.path(), "never.txt"));
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
async fn a_patch_through_a_symbolic_link_is_judged_where_it_lands() {
    // Under `never`, a patch inside the workspace is written without asking, one outside the
    // writable roots is refused: a link in the workspace pointing outside must not turn the
    // second into the first.
    let mut setup = setup("never", "workspace-write").await;
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), setup.workspace.path().join("link")).unwrap();
    setup.model.push_all([
        patch(
            "call_link",
            "*** Begin Patch\n*** Add File: link/escaped.txt\n+escaped\n*** End Patch\n",
        ),
        patch(
            "call_inside",
            "*** Begin Patch\n*** Add File: inside.txt\n+inside\n*** End Patch\n",
        ),
        done(),
    ]);
    run_turn(&mut setup, "patch", vec![]).await;
    assert!(
        !outside.path().join("escaped.txt").exists(),
        "the patch was written through the link"
    );
    assert!(
        tool_output(&setup.model, "call_link").contains("outside the writable roots"),
        "{}",
        tool_output(&setup.model, "call_link")
    );
    assert!(exists(setup.workspace.path(), "inside.txt"));
}
